"""The experiments app's HTTP API, one module per resource (urls.py names each view by its
module): experiments (list, create, plan, detail, start), runs (detail, cancel, retry,
run_output), catalogue, design_files (presets, design-file export and import, schema).
Design rules the input serializer applies live in experiments.rules."""
