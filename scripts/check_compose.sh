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
# Supervision (issue #17): every service has a restart policy; every long-running one (restart
# other than "no") a healthcheck.
docker-compose --env-file "$env_file" config | python3 -c '
import sys, yaml
problems = []
for name, service in yaml.safe_load(sys.stdin)["services"].items():
    restart = service.get("restart")
    if restart is None:
        problems.append(f"{name}: no restart policy")
    elif restart != "no" and "healthcheck" not in service:
        problems.append(f"{name}: restart {restart} but no healthcheck")
sys.exit("\n".join(problems) or None)
'
echo "docker-compose.yml is valid"
