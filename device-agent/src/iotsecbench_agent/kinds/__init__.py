"""Benchmark kinds as plug-ins: the seam (``base.BenchKind``, ``base.SampleRunner``) and
what the sample kinds share (``plan``, ``cli``). The list of kinds is ``jobkinds.py``, a
layer above the kinds, so this package never imports a kind.

Kept free of imports: a kind's engine imports ``kinds.plan``."""
