#!/bin/bash
# What the official postgres image's entrypoint does that deploy/compose.yaml relies on: as root, take the data
# directory and go on as postgres; on an empty PGDATA, initdb with POSTGRES_USER and the password of POSTGRES_PASSWORD
# or POSTGRES_PASSWORD_FILE (scram-sha-256 for every host), create POSTGRES_DB, run /docker-entrypoint-initdb.d/*.sh
# and *.sql against a server listening on its socket only, then start postgres listening everywhere.
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi
if [ "$1" = postgres ] && [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA"; chown postgres:postgres "$PGDATA"; chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [ "$1" = postgres ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD=$(<"$POSTGRES_PASSWORD_FILE"); fi
  : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE must be set}"
  export POSTGRES_USER=${POSTGRES_USER:-postgres}
  export POSTGRES_DB=${POSTGRES_DB:-$POSTGRES_USER}
  mkdir -p "$PGDATA"; chmod 700 "$PGDATA"
  initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --auth-local=trust \
    --auth-host=scram-sha-256 >/dev/null
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "listen_addresses = '*'" >>"$PGDATA/postgresql.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  export PGUSER=$POSTGRES_USER PGPASSWORD=$POSTGRES_PASSWORD
  if [ "$POSTGRES_DB" != postgres ]; then psql -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE \"$POSTGRES_DB\""; fi
  for f in /docker-entrypoint-initdb.d/*; do
    case "$f" in
      *.sh) echo "running $f"; if [ -x "$f" ]; then "$f"; else . "$f"; fi ;;
      *.sql) echo "running $f"; psql -q -v ON_ERROR_STOP=1 -d "$POSTGRES_DB" -f "$f" ;;
    esac
  done
  unset PGPASSWORD
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "PostgreSQL init process complete; ready for start up."
fi
exec "$@"
