"""MQTT-SN 1.2 (MQTT For Sensor Networks, Protocol Specification Version 1.2, Stanford-Clark
and Truong, IBM, 2013): the message codec (``codec``), a transparent gateway to an MQTT
broker (``gateway``) and the small synchronous client the round-trip runner measures with
(``client``). See device-agent/docs/mqttsn.md."""
