# A demo device agent (on a Raspberry Pi, install the package directly: docs/agent-on-a-pi.md).
FROM python:3.11-slim
WORKDIR /agent
COPY device-agent .
RUN pip install --no-cache-dir .
COPY --chmod=755 deploy/agent-entrypoint.sh /usr/local/bin/agent-entrypoint.sh
ENTRYPOINT ["/usr/local/bin/agent-entrypoint.sh"]
