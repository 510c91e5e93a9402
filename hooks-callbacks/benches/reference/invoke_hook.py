"""Baseline for benches/dispatch.rs: the reference's PluginManager.invoke_hook.

Run (from the workspace root):
    $HERMES_REFERENCE_PYTHON hooks-callbacks/benches/reference/invoke_hook.py
    $HERMES_REFERENCE_PYTHON hooks-callbacks/benches/reference/invoke_hook.py scale

`scale` times the scale table of benches/scale.rs instead (timeout 30 only):
1, 10, 100 and 1,000 bounded observers of post_tool_call, 1 and 10 guards of
pre_tool_call.

Creates a scratch HERMES_HOME per setting with `plugins.hook_callback_timeout`
set to 30 and to 0, registers callbacks through the public PluginContext API,
times each invoke_hook call with perf_counter_ns and prints p50/p99 in µs.
The installed reference is hermes-agent 0.19.0; this script only imports it.
"""

import os
import statistics
import sys
import tempfile
import time

SCENARIOS = [
    # (label, hook, callbacks, iterations)
    ("0 callbacks", "post_tool_call", 0, 20000),
    ("1 observer", "post_tool_call", 1, 20000),
    ("10 observers", "post_tool_call", 10, 20000),
    ("1 guard", "pre_tool_call", 1, 20000),
    ("1 observer (inline event)", "on_session_finalize", 1, 20000),
]
SCALE = [
    ("1 observer", "post_tool_call", 1, 20000),
    ("10 observers", "post_tool_call", 10, 5000),
    ("100 observers", "post_tool_call", 100, 1000),
    ("1000 observers", "post_tool_call", 1000, 200),
    ("1 guard", "pre_tool_call", 1, 20000),
    ("10 guards", "pre_tool_call", 10, 5000),
]
WARMUP = 200


def payload(hook, call):
    kwargs = dict(
        tool_name="terminal",
        args={"command": "ls -la"},
        task_id="task-1",
        session_id="sess-1",
        tool_call_id=f"call-{call}",
        turn_id="turn-1",
        api_request_id="req-1",
        middleware_trace=[],
    )
    if hook == "post_tool_call":
        kwargs.update(result="{}", status="ok", duration_ms=3)
    return kwargs


def make_observer():
    def observer(**kwargs):
        return None

    return observer


def make_guard():
    def guard(**kwargs):
        if kwargs.get("tool_name") == "rm":
            return {"action": "block", "message": "no rm"}
        return None

    return guard


def run(timeout_setting, scenarios=SCENARIOS):
    home = tempfile.mkdtemp(prefix="hermes-bench-")
    with open(os.path.join(home, "config.yaml"), "w") as config:
        config.write(f"plugins:\n  hook_callback_timeout: {timeout_setting}\n")
    os.environ["HERMES_HOME"] = home
    from hermes_cli.plugins import PluginContext, PluginManager, PluginManifest

    rows = []
    for label, hook, count, iterations in scenarios:
        manager = PluginManager()
        manager._discovered = True  # no discovery: only the callbacks below
        for index in range(count):
            context = PluginContext(PluginManifest(name=f"bench-{index}"), manager)
            callback = make_guard() if hook == "pre_tool_call" else make_observer()
            context.register_hook(hook, callback)
        samples = []
        warmup = min(WARMUP, iterations // 4)
        for call in range(warmup + iterations):
            kwargs = payload(hook, call)
            started = time.perf_counter_ns()
            manager.invoke_hook(hook, **kwargs)
            elapsed = time.perf_counter_ns() - started
            if call >= warmup:
                samples.append(elapsed)
        samples.sort()
        p50 = statistics.median(samples) / 1000
        p99 = samples[int(len(samples) * 0.99) - 1] / 1000
        rows.append((label, hook, count, p50, p99))
    for label, hook, count, p50, p99 in rows:
        print(
            f"timeout={timeout_setting:>2}  {label:<28} {hook:<20} "
            f"p50={p50:8.2f} us  p99={p99:8.2f} us"
        )


if __name__ == "__main__":
    import logging

    logging.disable(logging.WARNING)
    setting = sys.argv[1] if len(sys.argv) > 1 else None
    if setting == "scale":
        run(30, SCALE)
    elif setting is None:
        # One process per setting so the config is read fresh.
        import subprocess

        for value in ("30", "0"):
            subprocess.run([sys.executable, __file__, value], check=True)
    else:
        run(int(setting))
