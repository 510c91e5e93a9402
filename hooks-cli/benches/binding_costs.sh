#!/bin/bash
# What binding a project hook costs, end to end through the `hooks` binary
# (BENCHMARKS.md, "Project-hook binding"; history in
# docs/benchmarks/binding-costs.md).
#
# Usage: hooks-cli/benches/binding_costs.sh [HOOKS_BINARY]
#   (default target/release/hooks; build it first with
#    `cargo build --release -p hermes-hooks-cli --bin hooks`)
# Environment:
#   RUNS=20           timed runs per figure where it is fast (≥ 20)
#   SLOW_RUNS=5       runs of a figure whose first run takes over a second
#   PASSES="quiet loaded"   "loaded" starts two busy loops beside the runs
#   SECTIONS="call handlers prettier"
#   PRETTIER_NODE_MODULES=/tmp/rt6b-node/node_modules   a node_modules holding
#                     prettier (`npm install prettier` in an empty folder)
#
# Figures, each pass:
#  1. call: one `hooks emit pre_tool_call` (a terminal call) with no hook; the
#     user's own `~/.claude/hooks/check.sh` (no binding); the same script as an
#     approved project hook `.claude/hooks/check.sh` sourcing 3 project files;
#     and, with 2,000 files in src/, the script also naming `src` (user and
#     project). The approving emit (`--accept-hooks`, allowlist removed first)
#     of the project hook is timed too. Runs alternate between the variants.
#  2. handlers: one project settings file of 100 / 1,000 / 3,000 `echo N`
#     handlers (not approved): `hooks list` and `hooks emit`.
#  3. prettier (red-team R6b-8): a project hook `npx prettier --write x.js`
#     with prettier in the project's node_modules, without `.git`, then with
#     `.git` and `.gitignore: node_modules/`: the approving emit, each later
#     emit, and `npx prettier` run bare in the project (the baseline).
# Prints one line per figure: p50 / p99 / min in ms over the runs, and
# `uptime` before and after each pass.
set -euo pipefail
BIN=${1:-$(cd "$(dirname "$0")/../.." && pwd)/target/release/hooks}
[ -x "$BIN" ] || { echo "no hooks binary at $BIN" >&2; exit 2; }
exec python3 - "$BIN" <<'PY'
import json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

BIN = sys.argv[1]
RUNS = int(os.environ.get("RUNS", "20"))
SLOW_RUNS = int(os.environ.get("SLOW_RUNS", "5"))
PASSES = os.environ.get("PASSES", "quiet loaded").split()
SECTIONS = os.environ.get("SECTIONS", "call handlers prettier").split()
PRETTIER = os.environ.get("PRETTIER_NODE_MODULES", "/tmp/rt6b-node/node_modules")
ROOT = tempfile.mkdtemp(prefix="binding-costs-")
CLEAN = {k: v for k, v in os.environ.items()
         if k not in ("HERMES_HOME", "HERMES_ACCEPT_HOOKS", "HERMES_SAFE_MODE", "NO_COLOR", "HOOKS_LOG")}

CHECK_SH = """#!/bin/sh
cat >/dev/null
. "$CLAUDE_PROJECT_DIR/scripts/common.sh"
. "$CLAUDE_PROJECT_DIR/scripts/rules.sh"
. "$CLAUDE_PROJECT_DIR/scripts/util.sh"
%s
exit 0
"""


class World:
    """A throwaway user home ($H, Hermes home $HH) with a project ($P)."""

    def __init__(self, name):
        self.t = tempfile.mkdtemp(prefix=name + ".", dir=ROOT)
        self.h = os.path.join(self.t, "home")
        self.hh = os.path.join(self.h, ".hermes")
        self.p = os.path.join(self.h, "project")
        os.makedirs(self.hh)
        os.makedirs(self.p)
        write(os.path.join(self.hh, "config.yaml"), "hooks_from: [claude, codex, cursor]\n")
        self.payload = os.path.join(self.t, "payload.json")
        write(self.payload, json.dumps({"tool_name": "terminal", "args": {"command": "ls"},
                                        "task_id": "t", "session_id": "s"}))

    def argv(self, args, accept=False):
        return [BIN, "--home", self.hh, "--project", self.p] + (["--accept-hooks"] if accept else []) + args

    def env(self):
        return dict(CLEAN, HOME=self.h, HERMES_MANAGED_DIR=os.path.join(self.t, "managed"))

    def emit(self, accept=False):
        return self.argv(["emit", "pre_tool_call", "--payload-file", self.payload, "--json"], accept)

    def unapprove(self):
        path = os.path.join(self.hh, "shell-hooks-allowlist.json")
        if os.path.exists(path):
            os.remove(path)

    def settings(self, where, commands, matcher="Bash"):
        hooks = [{"type": "command", "command": c} for c in commands]
        write(os.path.join(where, ".claude", "settings.json"),
              json.dumps({"hooks": {"PreToolUse": [{"matcher": matcher, "hooks": hooks}]}}))


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def run(world, argv, check=None):
    """Runs argv once; returns seconds. `check(stdout)` may raise."""
    start = time.perf_counter()
    done = subprocess.run(argv, env=world.env(), cwd=world.p, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit("%s exited %d: %s" % (" ".join(argv[-4:]), done.returncode, done.stderr[-2000:]))
    if check:
        check(done.stdout)
    return elapsed


def statuses(stdout):
    runs = json.loads(stdout).get("runs") or []
    return ",".join(sorted({r.get("status", "?") for r in runs})) or "none"


def expect(want):
    def check(stdout):
        got = statuses(stdout)
        if got != want:
            raise SystemExit("expected runs %s, got %s: %s" % (want, got, stdout[:2000]))
    return check


def report(label, samples):
    ms = sorted(s * 1000 for s in samples)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    print("  %-58s p50 %9.2f  p99 %9.2f  min %9.2f ms  (n=%d)"
          % (label, statistics.median(ms), p99, ms[0], len(ms)), flush=True)
    return statistics.median(ms)


def alternate(variants, runs):
    """variants: [(label, world, argv, check, before)]; round-robin timing."""
    times = {v[0]: [] for v in variants}
    for _ in range(runs):
        for label, world, argv, check, before in variants:
            if before:
                before()
            times[label].append(run(world, argv, check))
    return {label: report(label, times[label]) for label, *_ in variants}


def project_files(world, src_files=0):
    for name in ("common", "rules", "util"):
        write(os.path.join(world.p, "scripts", name + ".sh"), "# %s\nSTRICT=1\n" % name)
    for i in range(src_files):
        write(os.path.join(world.p, "src", "m%04d.ts" % i), "export const v%d = %d;\n" % (i, i))


def call_section():
    print("1. per tool call (emit pre_tool_call, one terminal call)")
    extra = '[ -d "$CLAUDE_PROJECT_DIR/src" ] || exit 0'
    none = World("none"); project_files(none)
    variants = [("no hook", none, none.emit(), expect("none"), None)]
    for label, src in (("", 0), (", 2,000 files in src/ named", 2000)):
        user = World("user"); project_files(user, src)
        write(os.path.join(user.h, ".claude", "hooks", "check.sh"), CHECK_SH % (extra if src else ""), 0o755)
        user.settings(user.h, [os.path.join(user.h, ".claude", "hooks", "check.sh")])
        proj = World("project"); project_files(proj, src)
        write(os.path.join(proj.p, ".claude", "hooks", "check.sh"), CHECK_SH % (extra if src else ""), 0o755)
        proj.settings(proj.p, ['"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'])
        run(user, user.emit(accept=True), expect("completed"))
        run(proj, proj.emit(accept=True), expect("completed"))
        variants += [("user hook check.sh" + label, user, user.emit(), expect("completed"), None),
                     ("project hook check.sh, approved" + label, proj, proj.emit(), expect("completed"), None),
                     ("project hook check.sh, approving emit" + label, proj, proj.emit(accept=True),
                      expect("completed"), proj.unapprove)]
    alternate(variants, RUNS)


def handlers_section():
    print("2. load time vs handlers (one project settings file, `echo N`, not approved)")
    for n in (100, 1000, 3000):
        w = World("handlers%d" % n)
        w.settings(w.p, ["echo %d" % i for i in range(n)])
        first = run(w, w.argv(["list"]))
        runs = RUNS if first < 1.0 else SLOW_RUNS
        alternate([("%d handlers: hooks list" % n, w, w.argv(["list"]), None, None),
                   ("%d handlers: hooks emit" % n, w, w.emit(), None, None)], runs)


def prettier_section():
    print("3. R6b-8: project hook `npx prettier --write x.js`, prettier in node_modules (%s)" % PRETTIER)
    if not os.path.isdir(os.path.join(PRETTIER, "prettier")):
        print("  skipped: no prettier under %s" % PRETTIER)
        return
    cmd = 'npx prettier --write "$CLAUDE_PROJECT_DIR/x.js" >/dev/null'
    for git in (False, True):
        w = World("prettier-git" if git else "prettier")
        shutil.copytree(PRETTIER, os.path.join(w.p, "node_modules"), symlinks=True)
        write(os.path.join(w.p, "package.json"), '{"name":"p","private":true}\n')
        write(os.path.join(w.p, "x.js"), "const a  =  1\n")
        w.settings(w.p, [cmd])
        if git:
            write(os.path.join(w.p, ".gitignore"), "node_modules/\n")
            subprocess.run("git init -q && git add -A && git -c user.name=b -c user.email=b@x commit -qm init",
                           shell=True, cwd=w.p, check=True)
        tag = ".git, node_modules/ ignored" if git else "no .git"
        bare = (["sh", "-c", cmd.replace('"$CLAUDE_PROJECT_DIR/x.js"', "x.js")])
        seen = {}
        def note(key):
            def check(stdout):
                seen.setdefault(key, statuses(stdout))
            return check
        first = run(w, w.emit(accept=True), note("approving"))
        runs = RUNS if first < 1.0 else SLOW_RUNS
        alternate([("%s: npx prettier bare (baseline)" % tag, w, bare, None, None),
                   ("%s: approving emit" % tag, w, w.emit(accept=True), note("approving"), w.unapprove),
                   ("%s: later emit" % tag, w, w.emit(), note("later"), None)], runs)
        print("  %s: runs' status: approving emit %s, later emit %s" % (tag, seen.get("approving"), seen.get("later")))


def uptime():
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


try:
    print("binary:", BIN)
    for name in PASSES:
        loops = []
        if name == "loaded":
            loops = [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(2)]
            time.sleep(1)
        print("== pass: %s (two busy loops: %s)" % (name, "yes" if loops else "no"))
        print("uptime before:", uptime())
        try:
            for section in SECTIONS:
                {"call": call_section, "handlers": handlers_section, "prettier": prettier_section}[section]()
        finally:
            print("uptime after:", uptime())
            for loop in loops:
                loop.send_signal(signal.SIGKILL)
                loop.wait()
finally:
    shutil.rmtree(ROOT, ignore_errors=True)
PY
