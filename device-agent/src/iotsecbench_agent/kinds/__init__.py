"""Benchmark kinds as plug-ins: the seam (``base.BenchKind``, ``base.SampleRunner``), what
the sample kinds share (``plan``, ``cli``), and the list of kinds (``registry``).

Kept free of imports: a kind's engine imports ``kinds.plan``, and the registry imports
every kind."""
