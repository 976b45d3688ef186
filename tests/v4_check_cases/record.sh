#!/bin/sh
# Re-record these case folders from the published AgentV 4.42.4 packages:
#   AGENTV4_MODULES=<node_modules with @agentv/core@4.42.4 and agentv@4.42.4> sh record.sh
# driver.mjs (../shared/golden-v4) writes expected/ for the eval files; validate_oracle.mjs adds
# expected/validate_files.json: `agentv validate` on the settings and cases files of settings-files/.
set -e
here=$(cd "$(dirname "$0")" && pwd)
node "$here/../../../shared/golden-v4/driver.mjs" "$here"
cd "$here/settings-files"
mkdir -p .git
node "$here/validate_oracle.mjs" .agentv/config.yaml .agentv/targets.yaml global/config.yaml cases/list.yaml \
  | sed "s#$here/settings-files#<ROOT>#g" > expected/validate_files.json
rmdir .git
