"""The cipher benchmark (job kind ``cipher_bench``), a benchmark kind (``kinds/``): the engine
(plan, one child process per batch, statistics), the child, each mechanism family split
into timed streams, the runner, the ``cipher-bench`` subcommand and ``kind.py``.

Kept empty on purpose: the child runs as ``python -m iotsecbench_agent.cipherbench.child``,
and importing the package must not load the engine into the process whose memory it
measures."""
