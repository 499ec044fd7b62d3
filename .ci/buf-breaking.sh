#!/usr/bin/env bash
# buf breaking against the previous commit of main; skipped only when there is none
# (or it holds no proto files yet).
set -euo pipefail
if ! git rev-parse -q --verify HEAD~1 >/dev/null; then
  echo "no previous commit: skipping buf breaking"
  exit 0
fi
if ! git cat-file -e HEAD~1:proto 2>/dev/null; then
  echo "previous commit has no proto/: skipping buf breaking"
  exit 0
fi
npx buf breaking --against ".git#ref=HEAD~1"
echo "buf breaking: no breaking changes against HEAD~1"
