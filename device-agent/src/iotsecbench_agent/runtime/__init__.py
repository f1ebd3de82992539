"""The agent at run time: state and settings (config), the main loop (agent), the job
executor with its progress, health checks, device facts and network-profile enforcement."""
