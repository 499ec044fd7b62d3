#!/usr/bin/env bash
# npm test: proto checks, type check and every vitest suite, against throwaway PostgreSQL and
# Redis started for this run (scripts/test-services.sh) and removed afterwards, also on failure
# or Ctrl-C. With arguments (npm test -- test/api), only those vitest files run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/test-services.sh

VITEST_PID=""
on_exit() {
  local status=$?
  trap - EXIT INT TERM
  if [ -n "$VITEST_PID" ] && kill -0 "$VITEST_PID" 2>/dev/null; then
    kill -TERM "$VITEST_PID" 2>/dev/null || true
    wait "$VITEST_PID" 2>/dev/null || true
  fi
  stop_test_services
  exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$#" -eq 0 ]; then
  npm run --silent check:proto
  npm run --silent typecheck
fi
start_test_services
# vitest runs in the background so that a signal reaches this script's trap at once (the trap
# then stops vitest before the services it uses).
node_modules/.bin/vitest run "$@" &
VITEST_PID=$!
wait "$VITEST_PID"
