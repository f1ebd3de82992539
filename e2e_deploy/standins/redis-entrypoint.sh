#!/bin/sh
# The official image compiles protected mode off; later arguments still override it.
set -eu
if [ "${1:-}" = "redis-server" ]; then
  shift
  exec setpriv --reuid=redis --regid=redis --init-groups redis-server --protected-mode no "$@"
fi
exec "$@"
