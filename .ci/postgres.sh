#!/usr/bin/env bash
# A throwaway Postgres 15 with pgvector for the suite's Postgres half: installs Debian's postgresql-15 and
# postgresql-server-dev-15 when missing, builds pgvector from ../shared/vendor (never copied into the repository),
# starts a cluster of its own on loopback (its data dir under /tmp, its own port) and prints TEST_POSTGRES_URL=…
#   bash .ci/postgres.sh start   → prints the URL on stdout (everything else goes to stderr)
#   bash .ci/postgres.sh stop    → stops that cluster and removes its data dir
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
port="${CI_POSTGRES_PORT:-55439}"
state="/tmp/catalog-ci-postgres-${port}"
vendor="$root/../shared/vendor/pgvector-0.8.6.tar.gz"

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
# initdb and postgres refuse to run as root: as root the cluster belongs to Debian's postgres user.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_postgres() {
  if dpkg -s postgresql-15 postgresql-server-dev-15 make gcc >/dev/null 2>&1; then return; fi
  echo "installing postgresql-15 and postgresql-server-dev-15" >&2
  $sudo apt-get update -q >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends postgresql-15 postgresql-server-dev-15 make gcc >&2
}

build_pgvector() {
  local bin="$1"
  if [ ! -f "$vendor" ]; then
    if [ -f "$("$bin/pg_config" --sharedir)/extension/vector--0.8.6.sql" ]; then
      echo "pgvector's source is not at $vendor: using the pgvector 0.8.6 already installed" >&2
      return
    fi
    echo "pgvector's source is not at $vendor, and no pgvector 0.8.6 is installed" >&2
    # A distinct code: the machine lacks the team's vendored sources (../shared), which .ci/run reports apart.
    exit 3
  fi
  local build
  build="$(mktemp -d)"
  tar xzf "$vendor" -C "$build"
  make -s -C "$build/pgvector-0.8.6" -j"$(nproc)" PG_CONFIG="$bin/pg_config" >&2
  $sudo make -s -C "$build/pgvector-0.8.6" install PG_CONFIG="$bin/pg_config" >&2
  rm -rf "$build"
}

start() {
  install_postgres
  local bin=/usr/lib/postgresql/15/bin
  build_pgvector "$bin"
  stop
  mkdir -p "$state"
  if [ "$(id -u)" -eq 0 ]; then chown postgres "$state"; fi
  as_owner "$bin/initdb" -D "$state/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  # A test cluster: nothing in it outlives the run, so durability is traded for speed; connections for the test
  # workers' pools (each test file opens its own database and pool).
  as_owner "$bin/pg_ctl" -D "$state/data" -l "$state/log" -w start \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$state -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=256MB" >&2
  echo "TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:${port}/postgres"
}

stop() {
  if [ -f "$state/data/postmaster.pid" ]; then as_owner /usr/lib/postgresql/15/bin/pg_ctl -D "$state/data" -m immediate stop >&2 || true; fi
  rm -rf "$state"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
