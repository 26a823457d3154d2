#!/usr/bin/env bash
# Install a real VS Code workbench (code-server from the npm registry) for the real-front-end test
# (tests/clients/test_vscode_workbench.py) into clients/vscode/.workbench/ (gitignored). Offline
# from GitHub: code-server's install scripts download ripgrep and prebuilt binaries from GitHub,
# so this runs npm with scripts off, links Debian's ripgrep, and builds the native modules from
# source against Node's own headers. Safe to run again (a finished install is kept).
#   clients/vscode/workbench/install.sh [DEST]
set -euo pipefail
VERSION="${CODE_SERVER_VERSION:-4.100.3}"   # engines.node "20": matches the Node 20 used here
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:-$here/../.workbench}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
stamp="$dest/installed-$VERSION"
if [[ -f "$stamp" ]]; then echo "code-server $VERSION already installed in $dest"; exit 0; fi

node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$node_major" == 20 ]] || { echo "code-server $VERSION needs Node 20, found $(node --version)" >&2; exit 1; }
[[ -f /usr/include/node/node_api.h || -f /usr/include/nodejs/src/node_api.h ]] \
  || { echo "Node headers missing (install nodejs headers: libnode-dev / nodejs from nodesource)" >&2; exit 1; }
for tool in rg g++ make pkg-config; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install ripgrep build-essential pkg-config)" >&2; exit 1; }
done
[[ -f /usr/include/krb5.h || -f /usr/include/gssapi/gssapi.h ]] || { echo "missing libkrb5-dev" >&2; exit 1; }

# npm_config_yes: node-pty's postinstall runs `npx node-gyp` (fetched from the npm registry).
export npm_config_nodedir=/usr npm_config_build_from_source=true npm_config_unsafe_perm=true npm_config_yes=true
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
npm_q() { npm --loglevel=error "$@"; }

rm -rf "$dest/node_modules"
echo "== code-server $VERSION (scripts off)"
npm_q install --prefix "$dest" --ignore-scripts --omit=dev "code-server@$VERSION"
cs="$dest/node_modules/code-server"
echo "== code-server's own native module (argon2) from source"
(cd "$dest" && npm_q rebuild argon2 --build-from-source)

echo "== VS Code's dependencies (scripts off), Debian's ripgrep, native modules from source"
vs="$cs/lib/vscode"
(cd "$vs" && npm_q install --omit=dev --ignore-scripts)
mkdir -p "$vs/node_modules/@vscode/ripgrep/bin"
ln -sf "$(command -v rg)" "$vs/node_modules/@vscode/ripgrep/bin/rg"
(cd "$vs" && npm_q rebuild --build-from-source @parcel/watcher @vscode/spdlog @vscode/deviceid kerberos native-watchdog node-pty)
# What code-server's postinstall.sh does after its install step.
ln -sfn node_modules "$vs/node_modules.asar"
ln -sf code-server-linux.sh "$vs/bin/remote-cli/code-server"
ln -sf browser-linux.sh "$vs/bin/helpers/browser.sh"
(cd "$vs/extensions" && npm_q install --omit=dev)

HOME="$dest" node "$cs/out/node/entry.js" --version
touch "$stamp"
echo "code-server $VERSION installed: $cs/out/node/entry.js"
