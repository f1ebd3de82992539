# A demo device agent (on a Raspberry Pi, install the package directly: docs/agent-on-a-pi.md).
# The base is an argument so a machine without Docker Hub can build on a local stand-in
# (e2e_deploy/standins.py); it defaults to the official image.
ARG PYTHON_IMAGE=python:3.11-slim

# Stage 1 builds wheels; the image keeps none of its compilers.
FROM ${PYTHON_IMAGE} AS build
WORKDIR /build
# gcc builds the lightweight-cipher C extension and the EVP one (against libssl-dev). On
# linux/arm/v7 PyPI has no wheel of pycryptodome or cffi (cryptography's), so pip builds them
# too, cffi against libffi-dev.
RUN apt-get update && apt-get install -y --no-install-recommends \
    gcc libc6-dev libffi-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
# The third-party dependencies first, from pyproject.toml alone: under emulation their builds
# are most of the image's time, and this layer stays cached until the dependency list changes.
COPY device-agent/pyproject.toml pyproject.toml
RUN python -c "import tomllib; deps = tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']; print('\n'.join(d for d in deps if not d.startswith('iotsecbench')))" > requirements.txt \
    && pip wheel --no-cache-dir --wheel-dir /wheels -r requirements.txt
COPY contract contract
COPY device-agent device-agent
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels ./contract ./device-agent

FROM ${PYTHON_IMAGE}
# openssl and GNU time: the cipher bench's openssl-cli library runs `openssl enc` under
# /usr/bin/time for its peak RSS (docs/control-plane.md §7). libssl3 (the EVP extension's
# libcrypto) and libffi8 come with Python itself.
RUN apt-get update && apt-get install -y --no-install-recommends openssl time \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index /wheels/*.whl && rm -rf /wheels
COPY --chmod=755 deploy/agent-entrypoint.sh /usr/local/bin/agent-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/agent-entrypoint.sh"]
