"""IoTSecBench's own settings: control plane, job signing, limits."""

from config.env import REPO_DIR, envbool, envint, envsecret, envstr

# The MQTT broker of the control plane (jobs, status, heartbeats): mqtts:// with broker
# identities (below), so that no device's messages cross the LAN in clear.
MQTT_URL = envstr("MQTT_URL", default="mqtt://127.0.0.1:1883")
# The listener that runs without TLS (plain MQTT, MQTT-SN's gateway) use as their data plane.
# Default: MQTT_URL.
MQTT_DATA_URL = envstr("MQTT_DATA_URL", default="") or MQTT_URL
# The broker runs Mosquitto's dynamic-security plugin, refuses anonymous clients, and every
# device gets its own identity at enrollment (devices/broker.py): needs MQTT_TLS_CA_FILE,
# MQTT_TLS_CLIENT_CA_FILE and MQTT_TLS_CLIENT_CA_KEY_FILE. Off: an anonymous broker (tests).
MQTT_BROKER_IDENTITIES = envbool("MQTT_BROKER_IDENTITIES", default=False)

# A TLS listener of the same broker for runs over MQTT+TLS (e.g. mqtts://127.0.0.1:8883),
# and the CA certificate (PEM file) agents verify it with. Empty: TLS runs are refused.
MQTT_TLS_URL = envstr("MQTT_TLS_URL", default="")
MQTT_TLS_CA_FILE = envstr("MQTT_TLS_CA_FILE", default="")
# The CA (and its key) that signs devices' client certificates at enrollment and the
# platform's own (devices/broker.py); the TLS listener requires certificates of this CA.
MQTT_TLS_CLIENT_CA_FILE = envstr("MQTT_TLS_CLIENT_CA_FILE", default="")
MQTT_TLS_CLIENT_CA_KEY_FILE = envstr("MQTT_TLS_CLIENT_CA_KEY_FILE", default="")

# Base URL at which device agents reach this platform's HTTP API (uploads, facts).
PLATFORM_PUBLIC_URL = envstr("PLATFORM_PUBLIC_URL", default="http://127.0.0.1:8000")

# Ed25519 private key (PKCS#8 PEM) that signs every job sent to an agent. No default: a
# platform with a well-known signing key would let anyone command its agents.
JOB_SIGNING_KEY = envsecret("JOB_SIGNING_KEY")

# How long a published job stays valid; an agent refuses it afterwards.
JOB_TTL_SECONDS = envint("JOB_TTL_SECONDS", default=120)

# A run part whose device sent no heartbeat for this long ends (partial or failed) by the
# beat task.
RUN_HEARTBEAT_STALE_SECONDS = envint("RUN_HEARTBEAT_STALE_SECONDS", default=60)
# An uploaded chunk still `received` after this long is queued for ingestion again by the
# beat task (its task was lost with a worker killed mid-ingest).
CHUNK_REQUEUE_AFTER_SECONDS = envint("CHUNK_REQUEUE_AFTER_SECONDS", default=30)
# A run's devices must answer the health check before it within this time (beat fails it).
HEALTH_CHECK_TIMEOUT_SECONDS = envint("HEALTH_CHECK_TIMEOUT_SECONDS", default=60)

# One-time enrollment tokens expire after this many hours.
ENROLLMENT_TOKEN_TTL_HOURS = envint("ENROLLMENT_TOKEN_TTL_HOURS", default=24)

# Uploaded files (power-meter traces, kept raw as uploaded). Shared by the web and worker
# processes: in docker-compose a volume mounted on both.
MEDIA_ROOT = envstr("MEDIA_ROOT", default=str(REPO_DIR / ".local" / "media"))
# The largest power trace a user may upload, in MB (nginx's client_max_body_size must allow it).
POWER_TRACE_MAX_MB = envint("POWER_TRACE_MAX_MB", default=200)

# The request header holding the client's address when a reverse proxy in front sets it
# (docker-compose's nginx sets X-Real-IP to $remote_addr); empty: the socket's peer address.
# Login throttling counts failures per address. Set it only behind a proxy that overwrites
# the header, or clients could choose their address.
CLIENT_ADDRESS_HEADER = envstr("CLIENT_ADDRESS_HEADER", default="")
