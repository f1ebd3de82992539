"""One measured MQTT connection and the bytes it writes: ``mqtt_link`` (``MqttLink``,
``pump``, ``ride_out``) and ``mqtt_wire`` (wire bytes counted at the socket).

Shared by the round-trip runners (``runners/``), the one-way controller (``oneway/``) and
the control plane's TLS identity (``platform/identity.py``), so it sits below all three.
"""
