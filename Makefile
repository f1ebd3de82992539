# IoTSecBench — the two commands are `make up` and `make test` (see README.md).
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= python3
export PYTHONPATH := $(CURDIR)/backend:$(CURDIR)

.PHONY: help up preflight test check compose lint types layers test-backend test-agent test-frontend test-e2e test-deploy screenshot bench \
        schema schema-check frontend deps chromium tshark coap-client podman qemu clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

# --- dependencies -----------------------------------------------------------------------

# The agent's EVP extension builds against OpenSSL's headers (libssl-dev); without them it
# would build without that extension, and its tests would fail.
$(VENV)/.installed: requirements/base.txt requirements/dev.txt contract/pyproject.toml device-agent/pyproject.toml \
    device-agent/setup.py $(wildcard device-agent/native/*.c device-agent/native/*.h)
	@test -f /usr/include/openssl/evp.h || { echo "installing libssl-dev (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libssl-dev >/dev/null; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements/dev.txt -e ./contract -e './device-agent[dev]'
	@touch $@

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

frontend/dist/index.html: frontend/node_modules/.installed $(shell find frontend/src -type f 2>/dev/null) frontend/index.html
	cd frontend && npm run build

deps: $(VENV)/.installed frontend/node_modules/.installed ## install Python and npm dependencies

frontend: frontend/dist/index.html ## build the web UI into frontend/dist

chromium: ## install Debian's Chromium for the browser tests, if missing
	@command -v chromium >/dev/null || { echo "installing chromium (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

tshark: ## install Debian's tshark for the agent's packet-capture tests, if missing
	@command -v tshark >/dev/null || { echo "installing tshark (apt-get)"; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null; }

# Debian's libcoap3-bin names its client per TLS library (coap-client-notls, -openssl, -gnutls).
coap-client: ## install Debian's libcoap3-bin for the agent's CoAP interop tests, if missing
	@command -v coap-client >/dev/null || command -v coap-client-notls >/dev/null || { \
	  echo "installing libcoap3-bin (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libcoap3-bin >/dev/null; }

# No Docker engine here: Debian's podman (with runc: crun fails on hybrid cgroups), and
# mmdebstrap for the test's stand-in base images (e2e_deploy/standins.py).
podman: ## install Debian's podman, runc and mmdebstrap for the deployment test, if missing
	@command -v podman >/dev/null && command -v runc >/dev/null && command -v mmdebstrap >/dev/null || { \
	  echo "installing podman, runc, mmdebstrap (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc mmdebstrap >/dev/null; }

# The arm64 and armv7 agent images are built and run under emulation; `--enable` registers the
# handler with the kernel when it is not (e.g. after a reboot of a machine without systemd).
qemu: ## install qemu-user-static and enable its arm64/armv7 binfmt handlers, if missing
	@command -v qemu-aarch64-static >/dev/null && command -v qemu-arm-static >/dev/null \
	  && command -v update-binfmts >/dev/null || { \
	  echo "installing qemu-user-static, binfmt-support (apt-get)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static binfmt-support >/dev/null; }
	@for handler in qemu-aarch64 qemu-arm; do \
	  grep -qx enabled /proc/sys/fs/binfmt_misc/$$handler 2>/dev/null || update-binfmts --enable $$handler; \
	done

# --- the two commands ---------------------------------------------------------------------

up: preflight deps frontend ## install, build, migrate and start the whole product (Ctrl-C stops it)
	$(PY) scripts/up.py

preflight:
	@scripts/preflight.sh

test: check test-backend test-agent test-frontend test-e2e test-deploy ## every suite, exactly what CI runs

# --- parts ----------------------------------------------------------------------------------

check: lint types layers compose schema-check ## the fast lint-and-types subset

# The apps' import layering ([tool.importlinter] in pyproject.toml, docs/architecture.md).
layers: deps ## import-linter: backend apps and agent subpackages layered, backend off the agent, the contract pure
	PYTHONPATH=backend:. $(VENV)/bin/lint-imports --no-cache

compose: ## validate docker-compose.yml (no Docker engine needed)
	scripts/check_compose.sh

lint: deps
	$(VENV)/bin/ruff check backend worker e2e e2e_deploy bench scripts
	$(VENV)/bin/ruff format --check backend worker e2e e2e_deploy bench scripts
	cd contract && ../$(VENV)/bin/ruff check . && ../$(VENV)/bin/ruff format --check .
	cd device-agent && ../$(VENV)/bin/ruff check . && ../$(VENV)/bin/ruff format --check .
	cd frontend && npm run lint

types: deps
	$(VENV)/bin/mypy backend worker e2e e2e_deploy bench scripts
	cd contract && ../$(VENV)/bin/mypy --strict src tests
	cd device-agent && ../$(VENV)/bin/mypy --strict src tests
	cd frontend && npm run typecheck

test-backend: deps ## backend tests against the machine's PostgreSQL, Redis and Mosquitto
	$(VENV)/bin/pytest backend

test-agent: deps tshark coap-client ## contract and device-agent tests (unit + against a Mosquitto they start)
	cd contract && ../$(VENV)/bin/pytest
	cd device-agent && ../$(VENV)/bin/pytest

test-frontend: deps ## vitest
	cd frontend && npm test

test-e2e: deps frontend chromium tshark ## the whole path: real worker, agents, broker and Chromium
	$(VENV)/bin/pytest e2e -p no:cacheprovider

# CONTAINERS_CONF: runc with cgroupfs and no default ulimits (see the file); `-p no:django`:
# the test drives the stack from outside and imports no Django.
test-deploy: deps podman qemu ## build every image, run docker-compose.yml in podman, drive an experiment through nginx; the agent image for arm64/armv7 too
	CONTAINERS_CONF=$${CONTAINERS_CONF:-$(CURDIR)/e2e_deploy/containers.conf} \
	  $(VENV)/bin/pytest e2e_deploy -p no:cacheprovider -p no:django

screenshot: deps frontend chromium ## refresh docs/img/ (run-page.png, <page>-1440.png, <page>-390.png) from the browser tests
	UPDATE_DOCS_SCREENSHOT=1 $(VENV)/bin/pytest e2e/test_browser.py -p no:cacheprovider
	UPDATE_DOCS_SCREENSHOTS=1 $(VENV)/bin/pytest e2e/test_layout.py -p no:cacheprovider -k every_page

bench: deps ## benchmarks; figures go to docs/benchmarks.md
	$(PY) bench/ingest.py
	$(PY) bench/ciphers.py
	$(PY) bench/cryptolibs.py
	$(PY) bench/cipher_grouping.py
	$(PY) bench/cipher_grouping.py --size 8192 --calls 3000
	$(PY) bench/messaging.py
	$(PY) bench/power.py
	$(PY) bench/results.py
	$(PY) bench/experiment_results.py
	$(PY) bench/netemu.py
	$(PY) bench/relay.py
	$(PY) bench/agents.py --agents 30 --messages 200

schema: deps ## regenerate frontend/openapi.yaml and src/types/api.gen.ts from the backend, src/types/limits.gen.ts from the contract
	DJANGO_SECRET_KEY=schema JOB_SIGNING_KEY="$$($(PY) scripts/signing_key.py)" \
	  $(PY) backend/manage.py spectacular --validate --file frontend/openapi.yaml
	cd frontend && npm run gen:api
	$(PY) scripts/gen_limits_ts.py frontend/src/types/limits.gen.ts

# The API's schema and the frontend's types generated from it, checked against the backend:
# made afresh in a temporary directory and compared with the committed files.
SCHEMA_TMP := $(shell mktemp -d -u /tmp/iotsecbench-schema.XXXXXX)
schema-check: deps ## fail when frontend/openapi.yaml, src/types/api.gen.ts or limits.gen.ts is stale (fix: make schema)
	mkdir -p $(SCHEMA_TMP)
	DJANGO_SECRET_KEY=schema JOB_SIGNING_KEY="$$($(PY) scripts/signing_key.py)" \
	  $(PY) backend/manage.py spectacular --validate --file $(SCHEMA_TMP)/openapi.yaml
	cd frontend && npx openapi-typescript $(SCHEMA_TMP)/openapi.yaml -o $(SCHEMA_TMP)/api.gen.ts \
	  && node scripts/add-generated-header.mjs $(SCHEMA_TMP)/api.gen.ts
	@diff -u frontend/openapi.yaml $(SCHEMA_TMP)/openapi.yaml > $(SCHEMA_TMP)/diff \
	  && diff -u frontend/src/types/api.gen.ts $(SCHEMA_TMP)/api.gen.ts >> $(SCHEMA_TMP)/diff \
	  || { head -40 $(SCHEMA_TMP)/diff; echo "frontend/openapi.yaml or src/types/api.gen.ts is stale: run make schema and commit them"; rm -rf $(SCHEMA_TMP); exit 1; }
	$(PY) scripts/gen_limits_ts.py $(SCHEMA_TMP)/limits.gen.ts
	@diff -u frontend/src/types/limits.gen.ts $(SCHEMA_TMP)/limits.gen.ts \
	  || { echo "frontend/src/types/limits.gen.ts is stale (contract/src/iotsecbench_contract/limits.py changed): run make schema and commit it"; rm -rf $(SCHEMA_TMP); exit 1; }
	@rm -rf $(SCHEMA_TMP)

clean: ## remove build output and local state (keeps .venv)
	rm -rf frontend/dist .local
