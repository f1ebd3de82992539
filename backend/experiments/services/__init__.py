"""The experiments app's services, one module per job; import from the module itself:

- designs: experiment_create, what a run freezes (spec, one-way keys), network-profile
  enforceability;
- scheduling: experiment_start, run_start, runs_schedule, run_cancel, run_retry, run_fail;
- jobs: run_prepare, run_health_answered, run_dispatch and the jobs it signs (_job_for);
- oneway: the one-way controller (oneway_targets, run_oneway_send);
- agent_events: what agents report (run_device_*), run_settle, runs_fail_stale;
- plan: design_plan, what starting a design would queue.

Layers, so that no import is circular: designs < scheduling < oneway < jobs, and
scheduling < agent_events; plan uses designs only.
"""
