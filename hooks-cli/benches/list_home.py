"""`hooks list` against `hermes hooks list` on a home with 13 Python plugins
and 5 gateway hooks (BENCHMARKS.md, "hooks list").

Usage: python3 hooks-cli/benches/list_home.py HOOKS_BINARY HERMES_BINARY [RUNS]

Builds the home in a temporary directory (each plugin a copy of the rm-guard
shape, enabled; each gateway hook a `handler.py`; two shell hooks), then times
RUNS runs of each command, alternating, and prints the medians and the ratio.
`hooks list` is timed twice: before any `hooks doctor` (plugins "not
inspected yet") and after one (what the trial loads registered, from the
cache). Every run must exit 0.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time

PLUGIN = """\

def _guard(tool_name=None, args=None, **kwargs):
    if tool_name == "terminal" and "rm -rf" in str((args or {}).get("command", "")):
        return {"action": "block", "message": "no rm -rf"}
    return None

def register(ctx):
    ctx.register_hook("pre_tool_call", _guard)
"""

HANDLER = """\
async def handle(event_type, context):
    return None
"""


def build_home(root):
    home = os.path.join(root, ".hermes")
    names = ["plugin-%02d" % i for i in range(13)]
    for name in names:
        folder = os.path.join(home, "plugins", name)
        os.makedirs(folder)
        with open(os.path.join(folder, "plugin.yaml"), "w") as f:
            f.write("name: %s\nversion: 1.0.0\ndescription: bench\n" % name)
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write(PLUGIN)
    for i in range(5):
        folder = os.path.join(home, "hooks", "gateway-%d" % i)
        os.makedirs(folder)
        with open(os.path.join(folder, "HOOK.yaml"), "w") as f:
            f.write("name: gateway-%d\nevents: [agent:start, command:*]\n" % i)
        with open(os.path.join(folder, "handler.py"), "w") as f:
            f.write(HANDLER)
    scripts = os.path.join(home, "agent-hooks")
    os.makedirs(scripts)
    script = os.path.join(scripts, "ok.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\ncat >/dev/null\necho '{}'\n")
    os.chmod(script, 0o755)
    with open(os.path.join(home, "config.yaml"), "w") as f:
        f.write("plugins:\n  enabled: [%s]\n" % ", ".join(names))
        f.write("hooks:\n  pre_tool_call:\n    - command: %s\n      matcher: terminal\n" % script)
        f.write("  on_session_end:\n    - command: %s\n" % script)
    return home


def timed(argv, env):
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit("%s failed (%d): %s" % (argv, done.returncode, done.stderr.decode()[-500:]))
    return elapsed


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    hooks, hermes = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    with tempfile.TemporaryDirectory() as root:
        home = build_home(root)
        env = dict(os.environ, HOME=root, HERMES_HOME=home)
        env.pop("HERMES_HOOKS_PYTHON", None)
        ours = [hooks, "--home", home, "list"]
        theirs = [hermes, "hooks", "list"]
        cold, cached, reference = [], [], []
        for _ in range(runs):
            cold.append(timed(ours, env))
            reference.append(timed(theirs, env))
        start = time.perf_counter()
        doctor = subprocess.run([hooks, "--home", home, "doctor"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        doctor_elapsed = time.perf_counter() - start
        if doctor.returncode not in (0, 1):
            sys.exit("hooks doctor failed: %s" % doctor.stderr.decode()[-500:])
        for _ in range(runs):
            cached.append(timed(ours, env))
        listed = subprocess.run(ours, env=env, stdout=subprocess.PIPE).stdout.decode()
        loaded = listed.count("(python, loaded)")
        if loaded != 13:  # a trial timed out: the machine is too loaded to measure
            sys.exit("after doctor, %d of 13 plugins show as loaded:\n%s" % (loaded, listed))
    med = lambda xs: statistics.median(xs) * 1000
    print("runs each: %d" % runs)
    print("hooks list, not inspected yet : %8.1f ms" % med(cold))
    print("hooks list, after doctor      : %8.1f ms" % med(cached))
    print("hermes hooks list (0.19.0)    : %8.1f ms" % med(reference))
    print("hooks doctor (one run, 13 plugin trials + 5 handler imports at once): %.2f s"
          % doctor_elapsed)
    print("ratio (reference / ours)      : %8.1fx / %.1fx" % (
        med(reference) / med(cold), med(reference) / med(cached)))


if __name__ == "__main__":
    main()
