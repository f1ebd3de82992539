#!/usr/bin/env bash
# `make up` checks, before installing anything, that what it cannot install itself is here.
# Each missing thing gets one line: what is missing and how to get it.
missing=0
need() { echo "make up: $1" >&2; missing=1; }

command -v python3 >/dev/null || need "python3 (3.11+) not found: apt-get install python3 python3-venv"
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null ||
  need "python3 is older than 3.11: install Python 3.11 or newer"
python3 -c 'import venv, ensurepip' 2>/dev/null || need "python3 venv support missing: apt-get install python3-venv"
command -v cc >/dev/null || command -v gcc >/dev/null ||
  need "no C compiler (the agent's lightweight ciphers are a C extension): apt-get install build-essential python3-dev"
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null ||
  need "Python headers missing (to build the agent's C extension): apt-get install python3-dev"
command -v npm >/dev/null || need "npm not found: install Node.js 20 with npm (apt-get install nodejs npm)"
if [ -z "${MQTT_URL:-}" ] && ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
  need "mosquitto not found: apt-get install mosquitto (or set MQTT_URL to a broker you run)"
fi
exit $missing
