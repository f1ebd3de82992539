"""Power-trace endpoints (docs/power-traces.md)."""
