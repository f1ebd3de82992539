"""Results of runs: statistics, plot data, sizes and comparisons of messaging runs; exports and
the methods paragraph of every kind (docs/results.md)."""
