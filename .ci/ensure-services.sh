#!/usr/bin/env bash
# The tests use the machine's PostgreSQL and Redis; start them if they are not running.
set -euo pipefail
if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || true
fi
if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
for i in $(seq 1 30); do
  pg_isready -h 127.0.0.1 -p 5432 -q && redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && exit 0
  sleep 1
done
echo "PostgreSQL or Redis did not come up" >&2
exit 1
