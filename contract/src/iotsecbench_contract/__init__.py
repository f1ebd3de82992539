"""What the IoTSecBench platform (backend/) and its device agents (device-agent/) agree on.

Pure data and parsing, no I/O and no protocol libraries: the backend imports this package,
never the agent's internals (import-linter enforces it, see the root pyproject.toml), and
the agent imports it for the same definitions. A change here is a change of the wire
contract between the two; both sides' tests run against it.
"""
