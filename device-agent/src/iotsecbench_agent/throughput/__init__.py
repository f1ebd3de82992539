"""The throughput benchmark (job kind ``throughput``): the plan, the engine with its window
loops and summary statistics, and the agent's own UDP sink."""
