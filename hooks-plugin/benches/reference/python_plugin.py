"""Baseline for benches/python.rs: the same Python plugins in the reference, in-process.

Run: $HERMES_REFERENCE_PYTHON hooks-plugin/benches/reference/python_plugin.py HOME

HOME is a Hermes home whose config.yaml enables the plugins the bench wrote
(the rm-guard example and a counting on_stream_delta observer). Times
PluginManager.invoke_hook per call with perf_counter_ns: pre_tool_call (an
allowed and a blocked command) and on_stream_delta (0.19.0 has no observer
queues, so a delta is one in-process invoke_hook call). Prints p50/p99 in µs,
and for on_stream_delta also the wall-clock rate of a run of calls (what the
worker's deltas/s is measured as: every stall of a loaded machine counted).
"""

import logging
import os
import statistics
import sys
import time

WARMUP = 200
ITERATIONS = 20000
WALL_CALLS = 200000


def payload(command, call):
    return dict(
        tool_name="terminal",
        args={"command": command},
        task_id="task-1",
        session_id="sess-1",
        tool_call_id=f"call-{call}",
        turn_id="turn-1",
        api_request_id="req-1",
        middleware_trace=[],
    )


def delta(call):
    return dict(delta="tok ", kind="text", turn_id="turn-1", iteration=1,
                session_id="sess-1", model="m", provider="p", surface="cli")


def measure(manager, hook, make):
    samples = []
    for call in range(WARMUP + ITERATIONS):
        kwargs = make(call)
        started = time.perf_counter_ns()
        manager.invoke_hook(hook, **kwargs)
        elapsed = time.perf_counter_ns() - started
        if call >= WARMUP:
            samples.append(elapsed)
    samples.sort()
    return statistics.median(samples) / 1000, samples[int(len(samples) * 0.99) - 1] / 1000


def wall_rate(manager, hook, kwargs):
    """Calls per second over WALL_CALLS back-to-back calls, wall clock."""
    started = time.perf_counter_ns()
    for _ in range(WALL_CALLS):
        manager.invoke_hook(hook, **kwargs)
    return WALL_CALLS * 1e9 / (time.perf_counter_ns() - started)


def main():
    logging.disable(logging.WARNING)
    os.environ["HERMES_HOME"] = sys.argv[1]
    from hermes_cli.plugins import PluginManager

    manager = PluginManager()
    manager.discover_and_load()
    rows = [
        ("pre_tool_call allowed (ls)", "pre_tool_call", lambda c: payload("ls -la", c)),
        ("pre_tool_call blocked (rm -rf /)", "pre_tool_call", lambda c: payload("rm -rf /", c)),
        ("on_stream_delta observer", "on_stream_delta", delta),
    ]
    for label, hook, make in rows:
        p50, p99 = measure(manager, hook, make)
        print(f"reference in-process  {label:<34} p50={p50:8.2f} us  p99={p99:8.2f} us"
              f"  ({1e6 / p50:,.0f} calls/s at p50)")
    rate = wall_rate(manager, "on_stream_delta", delta(0))
    print(f"reference in-process  {'on_stream_delta observer, wall clock':<34} "
          f"{WALL_CALLS:,} calls at {rate:,.0f} calls/s")


if __name__ == "__main__":
    main()
