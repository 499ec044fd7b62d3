# Sourced by scripts/test.sh: throwaway PostgreSQL and Redis for one test run, and Chromium.
#
# Each service is started on a free port in a temporary directory and stopped (directory
# removed) by stop_test_services, which test.sh runs on exit, failure and Ctrl-C alike. The
# machine's own databases are never used: not even 127.0.0.1:5432 / 6379 when they run.
# TEST_DATABASE_URL / TEST_REDIS_URL point the tests at services of your choice instead.
# Missing software is installed from Debian's packages when running as root; otherwise the
# run stops at once with what to install.

TEST_SERVICES_DIR=""
PG_BIN=""
PG_USER=""
REDIS_PID=""

die() {
  printf 'npm test: %s\n' "$*" >&2
  exit 1
}

# Debian packages, installed without starting their own system-wide services.
apt_install() {
  command -v apt-get >/dev/null || die "cannot install $* (no apt-get); install it yourself or set TEST_DATABASE_URL / TEST_REDIS_URL"
  [ "$(id -u)" = 0 ] || die "$* is missing: run 'sudo apt-get install -y $*' (or run npm test as root to have it installed), or set TEST_DATABASE_URL / TEST_REDIS_URL"
  local policy=/usr/sbin/policy-rc.d added=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && added=1
  fi
  echo "npm test: installing $* from Debian's packages"
  local status=0
  { DEBIAN_FRONTEND=noninteractive apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"; } >&2 || status=$?
  [ -n "$added" ] && rm -f "$policy"
  [ "$status" = 0 ] || die "apt-get install $* failed (exit $status)"
}

free_port() {
  node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

find_pg_bin() {
  local dir
  for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && { echo "$dir"; return; }
  done
  command -v initdb >/dev/null && command -v pg_ctl >/dev/null && dirname "$(command -v initdb)"
}

# PostgreSQL refuses to run as root: as root the cluster belongs to the postgres user.
as_pg() {
  if [ -n "$PG_USER" ]; then runuser -u "$PG_USER" -- "$@"; else "$@"; fi
}

start_postgres() {
  PG_BIN=$(find_pg_bin)
  if [ -z "$PG_BIN" ]; then
    apt_install postgresql
    PG_BIN=$(find_pg_bin)
    [ -n "$PG_BIN" ] || die "PostgreSQL was installed but initdb/pg_ctl were not found"
  fi
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root, PostgreSQL needs an unprivileged user 'postgres' (create one, or run npm test as another user)"
    PG_USER=postgres
  fi
  local dir="$TEST_SERVICES_DIR/pg" port
  mkdir -p "$dir"
  [ -n "$PG_USER" ] && chown "$PG_USER" "$dir"
  port=$(free_port)
  as_pg "$PG_BIN/initdb" -D "$dir/data" -U postgres --auth=trust --no-sync -E UTF8 >"$TEST_SERVICES_DIR/initdb.log" 2>&1 ||
    die "initdb failed: $(tail -n 5 "$TEST_SERVICES_DIR/initdb.log")"
  as_pg "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" \
    start >/dev/null || die "PostgreSQL did not start within 60 s: $(tail -n 5 "$dir/server.log" 2>/dev/null)"
  as_pg "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres test || die "could not create the test database"
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/test"
  echo "npm test: throwaway PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

redis_ping() {
  local reply=""
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 reply <&3 || true
  exec 3>&- 3<&-
  [ "${reply%$'\r'}" = "+PONG" ]
}

start_redis() {
  command -v redis-server >/dev/null || apt_install redis-server
  command -v redis-server >/dev/null || die "redis-server was installed but is not on PATH"
  local dir="$TEST_SERVICES_DIR/redis" port i
  mkdir -p "$dir"
  port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" \
    --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" || die "redis-server did not start"
  for i in $(seq 1 100); do
    redis_ping "$port" && break
    [ "$i" = 100 ] && die "Redis did not answer within 10 s: $(tail -n 5 "$dir/redis.log" 2>/dev/null)"
    sleep 0.1
  done
  REDIS_PID=$(cat "$dir/redis.pid")
  export TEST_REDIS_URL="redis://127.0.0.1:$port"
  echo "npm test: throwaway Redis $(redis-server --version | awk '{print $3}' | sed 's/^v=//') on 127.0.0.1:$port"
}

ensure_chromium() {
  [ -n "${CHROMIUM_PATH:-}" ] && { [ -x "$CHROMIUM_PATH" ] || die "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable"; return; }
  [ -x /usr/bin/chromium ] || apt_install chromium fonts-dejavu-core
  [ -x /usr/bin/chromium ] || die "chromium was installed but /usr/bin/chromium is missing"
}

start_test_services() {
  TEST_SERVICES_DIR=$(mktemp -d "${TMPDIR:-/tmp}/moderation-test-services.XXXXXX")
  chmod 755 "$TEST_SERVICES_DIR"
  ensure_chromium
  if [ -n "${TEST_DATABASE_URL:-}" ]; then echo "npm test: PostgreSQL from TEST_DATABASE_URL"; else start_postgres; fi
  if [ -n "${TEST_REDIS_URL:-}" ]; then echo "npm test: Redis from TEST_REDIS_URL"; else start_redis; fi
}

stop_test_services() {
  [ -n "$TEST_SERVICES_DIR" ] || return 0
  if [ -n "$PG_BIN" ] && [ -f "$TEST_SERVICES_DIR/pg/data/postmaster.pid" ]; then
    as_pg "$PG_BIN/pg_ctl" -D "$TEST_SERVICES_DIR/pg/data" -m immediate -w -t 20 stop >/dev/null 2>&1 || true
  fi
  if [ -n "$REDIS_PID" ]; then
    kill "$REDIS_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$REDIS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$REDIS_PID" 2>/dev/null || true
  fi
  rm -rf "$TEST_SERVICES_DIR"
  TEST_SERVICES_DIR=""
}
