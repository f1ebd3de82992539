#!/usr/bin/env bash
# Validate docker-compose.yml without a Docker engine (Debian's docker-compose package),
# with dummy values for the required secrets.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v docker-compose >/dev/null || {
  echo "installing docker-compose (apt-get)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
}
env_file=$(mktemp)
trap 'rm -f "$env_file"' EXIT
printf 'DJANGO_SECRET_KEY=check\nJOB_SIGNING_KEY=check\nPOSTGRES_PASSWORD=check\n' >"$env_file"
docker-compose --env-file "$env_file" config -q
echo "docker-compose.yml is valid"
