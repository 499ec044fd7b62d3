#!/usr/bin/env bash
# Debian packages the tests need: Chromium for the dashboard's browser tests.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "chromium present: $(/usr/bin/chromium --version 2>/dev/null || true)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
