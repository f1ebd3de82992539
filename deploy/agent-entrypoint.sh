#!/bin/sh
# Enroll once (the state volume keeps the identity), then run the agent.
set -eu
if [ ! -f "$IOTSECBENCH_AGENT_STATE_DIR/state.json" ]; then
  iotsecbench-agent enroll --server="$IOTSECBENCH_AGENT_SERVER" \
    --token="$IOTSECBENCH_ENROLL_TOKEN" --name="$IOTSECBENCH_AGENT_NAME" \
    --state-dir="$IOTSECBENCH_AGENT_STATE_DIR"
fi
exec iotsecbench-agent run --state-dir "$IOTSECBENCH_AGENT_STATE_DIR"
