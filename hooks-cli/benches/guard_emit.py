#!/usr/bin/env python3
"""Time `hooks emit` of a user's fail-closed guard whose command reaches the
project (`make -s lint`, `git status`, `npm run lint`, `pytest` over N test
files), for two `hooks` binaries run in turn, as BENCHMARKS.md quotes it.

    python3 hooks-cli/benches/guard_emit.py OURS BASELINE [RUNS] [TEST_FILES]

Prints the median and the maximum (which stands for p99 at these run
counts) in ms per case and binary. Run it once quiet and once beside two
busy loops (`yes > /dev/null &` twice). Needs git, make, npm and pytest.
"""
import json, os, statistics, subprocess, sys, tempfile, time

ours, baseline = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 9
test_files = int(sys.argv[4]) if len(sys.argv) > 4 else 500
root = tempfile.mkdtemp(prefix="guard-emit.")
test_body = "".join(f"def test_{k}():\n    assert {k} == {k}\n" for k in range(60))
cases = {
    "make": ("make -s lint", 'printf "lint:\\n\\t@true\\ninclude r.mk\\n" > Makefile; printf "x:\\n\\t@echo\\n" > r.mk'),
    "git": ("git status", "git config user.email a@b; git config user.name a; echo r > README; git add -A; git commit -qm i"),
    "npm": ("npm run lint", 'echo \'{"scripts":{"lint":"node lint.js"}}\' > package.json; echo 1 > lint.js'),
    "pytest": ("python3 -m pytest --version", ""),
}
payload = os.path.join(root, "p.json")
with open(payload, "w") as f:
    json.dump({"tool_name": "terminal", "args": {"command": "ls"}, "task_id": "t"}, f)
results = {}
for name, (guard, setup) in cases.items():
    home = os.path.join(root, name)
    project = os.path.join(home, "project")
    os.makedirs(os.path.join(home, ".hermes"))
    os.makedirs(os.path.join(home, ".claude"))
    os.makedirs(os.path.join(home, "managed"))
    os.makedirs(project)
    subprocess.run(f"git init -q . && {setup or 'true'}", shell=True, cwd=project, check=True)
    if name == "pytest":
        for i in range(test_files):
            with open(os.path.join(project, f"test_{i}.py"), "w") as f:
                f.write(test_body)
    with open(os.path.join(home, ".hermes", "config.yaml"), "w") as f:
        f.write("hooks_from: [claude]\n")
    command = f"cat >/dev/null; ( {guard} ) >/dev/null 2>&1; echo {{}}"
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command, "failClosed": True}]}]}}
    with open(os.path.join(home, ".claude", "settings.json"), "w") as f:
        json.dump(settings, f)
    env = dict(os.environ, HOME=home, HERMES_MANAGED_DIR=os.path.join(home, "managed"))
    env.pop("HERMES_HOME", None)
    emit = lambda binary, *extra: subprocess.run(
        [binary, "--home", os.path.join(home, ".hermes"), "--project", project, *extra,
         "emit", "pre_tool_call", "--payload-file", payload],
        cwd=project, env=env, capture_output=True)
    for binary in (ours, baseline):
        emit(binary, "--accept-hooks")
    for _ in range(runs):
        for label, binary in (("ours", ours), ("baseline", baseline)):
            started = time.perf_counter()
            emit(binary)
            results.setdefault((name, label), []).append((time.perf_counter() - started) * 1000)
for (name, label), times in sorted(results.items()):
    print(f"{name:7s} {label:9s} median {statistics.median(times):7.1f} ms  max {max(times):7.1f} ms")
