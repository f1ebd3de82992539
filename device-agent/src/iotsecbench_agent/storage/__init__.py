"""Run logs on disk: the append-only record and sample logs, and atomic file writes."""
