"""Talking to the platform: the HTTP API and run uploads, the MQTT control plane with its
job intake and events, signed jobs, the broker identity and sealed secrets."""
