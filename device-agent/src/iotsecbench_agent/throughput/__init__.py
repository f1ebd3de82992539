"""The throughput benchmark (job kind ``throughput``), a benchmark kind (``kinds/``): the
plan, the engine with its window loops and summary statistics, the agent's own UDP sink,
the runner, the ``throughput`` subcommand and ``kind.py``."""
