"""IoTSecBench device agent: runs signed measurement jobs and uploads their records."""

from __future__ import annotations

__version__ = "0.1.0"
