"""The ``iotsecbench-agent`` command line: ``main`` (parsing and the agent subcommands),
``bench`` (``cipher-bench``) and ``throughput`` (``throughput``)."""
