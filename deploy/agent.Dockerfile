# A demo device agent (on a Raspberry Pi, install the package directly: docs/agent-on-a-pi.md).
# The base is an argument so a machine without Docker Hub can build on a local stand-in
# (e2e_deploy/standins.py); it defaults to the official image.
ARG PYTHON_IMAGE=python:3.11-slim
FROM ${PYTHON_IMAGE}
WORKDIR /agent
COPY contract contract
COPY device-agent device-agent
# gcc builds the lightweight-cipher C extension, then goes (the image keeps only the .so).
# On linux/arm/v7 PyPI has no wheel of pycryptodome or cffi (cryptography's), so pip builds
# them too, cffi against libffi-dev (the runtime libffi8 stays: Python itself needs it).
# openssl and GNU time stay: the cipher bench's openssl-cli library runs `openssl enc` under
# /usr/bin/time for its peak RSS (docs/control-plane.md §7).
RUN apt-get update && apt-get install -y --no-install-recommends openssl time \
    gcc libc6-dev libffi-dev \
    && pip install --no-cache-dir ./contract ./device-agent \
    && rm -rf contract device-agent \
    && apt-get purge -y gcc libc6-dev libffi-dev && apt-get autoremove -y \
    && rm -rf /var/lib/apt/lists/*
COPY --chmod=755 deploy/agent-entrypoint.sh /usr/local/bin/agent-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/agent-entrypoint.sh"]
