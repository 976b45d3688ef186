#!/usr/bin/env bash
# Installs the published AgentV 4.42.4 runtime (@agentv/core + agentv) into NODE_DIR from the
# committed npm/package.json + npm/package-lock.json (the locked versions: the same tree every time).
#
#   tests/oracle_v4/install.sh NODE_DIR
#   export AGENTV4_MODULES=NODE_DIR/node_modules
#
# Idempotent: when NODE_DIR already holds a tree installed from the same lock file, it returns at
# once. Install scripts are not run (the runtime's entry points need none). Prints the
# node_modules path on the last line of stdout.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 NODE_DIR" >&2
  exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source_dir="$here/npm"
mkdir -p "$1"
node_dir="$(cd "$1" && pwd)"
modules="$node_dir/node_modules"
stamp="$modules/.agentv-lsp-oracle-lock"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$0: '$tool' is not on PATH; install Node.js 20 or later" >&2
    exit 3
  fi
done

wanted="$(cat "$source_dir/package.json" "$source_dir/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$wanted" ] \
  && [ -f "$modules/@agentv/core/dist/index.js" ] && [ -f "$modules/agentv/package.json" ]; then
  echo "$modules"
  exit 0
fi

cp "$source_dir/package.json" "$source_dir/package-lock.json" "$node_dir/"
(
  cd "$node_dir"
  # `npm ci` rejects this lock: npm leaves the other platforms' aliased optional packages
  # (@openai/codex-darwin-arm64, …) out of it and then calls it out of sync. `npm install` with the
  # lock installs exactly the locked versions all the same.
  npm install --ignore-scripts --no-audit --no-fund --loglevel=error >&2
)
for package in "@agentv/core" "agentv"; do
  version="$(node -p "require('$modules/$package/package.json').version" 2>/dev/null || true)"
  if [ "$version" != "4.42.4" ]; then
    echo "$0: npm install finished but $modules/$package is '${version:-missing}', not 4.42.4" >&2
    exit 4
  fi
done
echo "$wanted" >"$stamp"
echo "$modules"
