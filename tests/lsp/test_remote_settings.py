"""The `servers` setting: decoded with bounds, tokens taken only from the environment or the
config file, never echoed; the session path rule."""

from __future__ import annotations

import json
from pathlib import Path

from crane_server.kernels.remote_sessions import configured_servers, same_path
from crane_server.lsp.settings import decode_settings
from crane_server.protocol.lsp import RemoteServer

SECRET = "s3cret-token-value-1234"


def test_servers_decode_in_camel_case_with_a_timeout() -> None:
    settings, warnings = decode_settings(
        {"servers": [{"url": "http://gpu:8888/", "tokenEnv": "GPU_TOKEN"}], "serverTimeoutS": 2}
    )
    assert warnings == []
    assert settings.servers == [RemoteServer(url="http://gpu:8888/", token_env="GPU_TOKEN")]
    assert settings.server_timeout_s == 2


def test_a_token_or_a_query_in_the_settings_is_refused_without_echo() -> None:
    for servers in (
        [{"url": "http://gpu:8888/", "token": SECRET}],
        [{"url": f"http://gpu:8888/?token={SECRET}"}],
        [{"url": "http://gpu:8888/", "tokenEnv": f"{SECRET}!"}],
        [{"url": "ftp://gpu/"}],
        [{"url": f"http://gpu{i}:8888/"} for i in range(17)],
    ):
        settings, warnings = decode_settings({"servers": servers})
        assert settings.servers == []
        assert len(warnings) == 1 and "servers" in warnings[0]
        assert SECRET not in warnings[0]
    _, warnings = decode_settings({"serverTimeoutS": 0})
    assert len(warnings) == 1


def test_token_precedence_environment_then_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "jupyter_servers": [
                    {"url": "http://gpu:8888", "token": "from-config"},
                    {"url": "http://only-in-config:8888/", "token": "config-2"},
                ]
            }
        )
    )
    entries = [
        RemoteServer(url="http://gpu:8888/", token_env="GPU_TOKEN"),
        RemoteServer(url="http://other:8888/"),
    ]
    environ = {"GPU_TOKEN": "from-env", "CRANE_JUPYTER_TOKEN": "default"}
    endpoints, warnings = configured_servers(entries, config_path=config, environ=environ)
    assert warnings == []
    assert [(e.base_url, e.token) for e in endpoints] == [
        ("http://gpu:8888/", "from-env"),
        ("http://other:8888/", "default"),
        ("http://only-in-config:8888/", "config-2"),
    ]
    endpoints, warnings = configured_servers(entries, config_path=config, environ={})
    assert endpoints[0].token == "from-config"
    assert len(warnings) == 1 and "GPU_TOKEN is not set" in warnings[0]
    config.write_text('{"jupyter_servers": [{"url": 1, "token": "' + SECRET + '"}]}')
    _, warnings = configured_servers([], config_path=config, environ={})
    assert len(warnings) == 1 and SECRET not in warnings[0]


def test_headers_from_the_variable_headers_env_names_or_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {"jupyter_servers": [{"url": "http://hub:8000/user/ana/", "headers": {"X-Proxy": "p"}}]}
        )
    )
    entries = [
        RemoteServer(url="http://gpu:8888/", headers_env="GPU_HEADERS"),
        RemoteServer(url="http://hub:8000/user/ana/"),
    ]
    bearer = json.dumps({"Authorization": f"Bearer {SECRET}"})
    endpoints, warnings = configured_servers(
        entries, config_path=config, environ={"GPU_HEADERS": bearer}
    )
    assert warnings == []
    assert endpoints[0].headers == {"Authorization": f"Bearer {SECRET}"}  # no token header added
    assert endpoints[0].authenticated
    assert endpoints[1].extra_headers == (("X-Proxy", "p"),)
    # an unset variable and a broken value: one warning each, never the value
    endpoints, warnings = configured_servers(entries, config_path=config, environ={})
    assert len(warnings) == 1 and "GPU_HEADERS is not set" in warnings[0]
    broken = json.dumps({"X-Proxy": f"{SECRET}\nHost: evil"})
    endpoints, warnings = configured_servers(
        entries, config_path=config, environ={"GPU_HEADERS": broken}
    )
    assert [e.base_url for e in endpoints] == ["http://hub:8000/user/ana/"]
    assert len(warnings) == 1 and "line break" in warnings[0] and SECRET not in warnings[0]
    settings, warnings = decode_settings(
        {"servers": [{"url": "http://gpu:8888/", "headersEnv": "GPU_HEADERS"}]}
    )
    assert warnings == [] and settings.servers[0].headers_env == "GPU_HEADERS"


def test_a_session_path_matches_the_documents_tail_part_by_part() -> None:
    assert same_path("/home/ana/work/analysis.ipynb", "work/analysis.ipynb")
    assert same_path("/home/ana/work/analysis.ipynb", "analysis.ipynb")
    assert not same_path("/home/ana/other/analysis.ipynb", "work/analysis.ipynb")
    assert not same_path("/x/banalysis.ipynb", "analysis.ipynb")
    assert not same_path("/analysis.ipynb", "deep/er/analysis.ipynb")
    assert not same_path("/a.ipynb", "")
