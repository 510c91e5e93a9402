"""Time the Python reference's shell-hook path: one hook, N invoke_hook calls.

Usage: HERMES_HOME=<tmp> python reference_shell.py <hook-command> [N]
Prints one JSON line: {"n": N, "p50_us": ..., "mean_us": ...}.
Run by benches/shell.rs in the same run as the Rust measurements.
"""

import json
import statistics
import sys
import time

from agent import shell_hooks
from hermes_cli.plugins import invoke_hook


def main() -> None:
    command = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    config = {"hooks": {"pre_tool_call": [{"command": command}]}}
    registered = shell_hooks.register_from_config(config, accept_hooks=True)
    if not registered:
        raise SystemExit("the reference registered no hook")
    kwargs = {
        "tool_name": "terminal",
        "args": {"command": "ls -la"},
        "session_id": "bench-session",
        "task_id": "bench-task",
        "tool_call_id": "bench-call",
    }
    for _ in range(10):
        invoke_hook("pre_tool_call", **kwargs)
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        invoke_hook("pre_tool_call", **kwargs)
        samples.append((time.perf_counter() - started) * 1e6)
    print(json.dumps({"n": count, "p50_us": statistics.median(samples),
                      "mean_us": statistics.fmean(samples)}))


if __name__ == "__main__":
    main()
