#!/usr/bin/env bash
# Editor clients in CI: build and unit-test the VS Code extension (npm registry only), make sure
# Neovim is installed (Debian package), install Debian's chromium + chromedriver and enable crane's
# Jupyter server extension, then run the client tests (headless Neovim, JupyterLab).
#   clients/ci.sh              everything
#   clients/ci.sh --no-pytest  build, unit tests and the Neovim/Chromium installs only (when .ci/run's own
#                              pytest run already collects tests/clients)
set -euo pipefail
cd "$(dirname "$0")/.."
run_pytest=1
[[ "${1:-}" == "--no-pytest" ]] && run_pytest=0

if [[ "$(id -u)" == 0 ]]; then SUDO=""; else SUDO="sudo"; fi
apt_install() {
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

echo "== VS Code extension: npm ci, mocha unit tests, vsce package"
command -v npm >/dev/null 2>&1 || apt_install nodejs npm   # Node 20+ recommended (vsce 3)
node --version
(
  cd clients/vscode
  npm ci --no-audit --no-fund --loglevel=error
  npm test
  npm run --silent package
  test -s crane-vscode.vsix
  ls -l crane-vscode.vsix
)

echo "== VS Code workbench for the real-front-end test: code-server from the npm registry"
# Debian's ripgrep replaces the one its install scripts download from GitHub; the native modules
# build from source against Node's headers (krb5 for VS Code's kerberos module).
command -v rg >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 \
  && { [[ -f /usr/include/krb5.h ]] || [[ -f /usr/include/gssapi/gssapi.h ]]; } \
  || apt_install ripgrep build-essential pkg-config libkrb5-dev
clients/vscode/workbench/install.sh   # into clients/vscode/.workbench/ (gitignored; cache it in CI)

echo "== JupyterLab: Debian's chromium and chromedriver for the real-front-end test; the server and lab extensions"
command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 \
  || apt_install chromium chromium-driver
chromium --version 2>/dev/null | head -1
# A wheel install puts this file in place (pyproject data-files); an editable install (pip install
# -e, as .ci/run does) does not, so put the same file where the wheel would.
jupyter_conf="$(python3 -c 'import sys; print(sys.prefix)')/etc/jupyter/jupyter_server_config.d"
mkdir -p "$jupyter_conf"
cp clients/jupyterlab/jupyter-config/jupyter_server_config.d/crane_server.json "$jupyter_conf/"
# The prebuilt JupyterLab / Notebook 7 extension likewise (a wheel puts it in share/jupyter/labextensions).
# A link, so a rebuilt extension (clients/jupyterlab/extension: npm ci && npm run build) is what loads.
labext="$(python3 -c 'import sys; print(sys.prefix)')/share/jupyter/labextensions"
mkdir -p "$labext"
rm -rf "$labext/crane-jupyterlab"
ln -s "$PWD/clients/jupyterlab/labextension" "$labext/crane-jupyterlab"
jupyter labextension list 2>&1 | grep "crane-jupyterlab.*enabled" >/dev/null \
  || { echo "crane-jupyterlab is not listed by jupyter labextension list" >&2; exit 1; }
# And the jupyterlab-lsp default the wheel puts in JupyterLab's overrides.d (draw each publish at once).
overrides="$(python3 -c 'import sys; print(sys.prefix)')/share/jupyter/lab/settings/overrides.d"
mkdir -p "$overrides"
cp clients/jupyterlab/settings/overrides.d/crane-server.json "$overrides/"

echo "== Neovim"
command -v nvim >/dev/null 2>&1 || apt_install neovim
nvim --version | head -1

if [[ "$run_pytest" == 1 ]]; then
  echo "== client tests: headless Neovim, JupyterLab registration"
  python3 -m pytest -q -p no:cacheprovider tests/clients
fi
