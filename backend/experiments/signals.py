"""What experiments tells the apps above it (measurements, results) without importing them.

Receivers are connected in those apps' ready(); they run synchronously, inside the sender's
transaction, and their exceptions propagate."""

from django.dispatch import Signal

# Sent (sender=Run, run_id=...) while a run settles, under its row lock, whenever its stored
# records changed since its summary was last computed: measurements computes the summary.
run_needs_summary = Signal()

# Sent (sender=Run, run_id=...) when a run settles `done`, inside the settling transaction:
# results warms its caches once that commits.
run_done = Signal()
