#!/bin/bash
set -euo pipefail
if [ "${1:0:1}" = '-' ]; then set -- redis-server "$@"; fi
if [ "$1" = redis-server ]; then
  shift
  set -- redis-server --protected-mode no "$@"
  if [ "$(id -u)" = 0 ]; then exec setpriv --reuid=redis --regid=redis --init-groups "$@"; fi
fi
exec "$@"
