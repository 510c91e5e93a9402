#!/bin/bash
# What the binding of two user guards costs per `hooks emit pre_tool_call`,
# two `hooks` binaries alternating emit by emit (docs/benchmarks/
# binding-costs.md, "Rounds 59–61"). The guards, both fail-closed, approved
# once in a git project holding a Makefile: a Python guard running `git -C
# data["cwd"] status`, and a shell guard piping text into `sh` and running
# `$x` (= make).
#
# Usage: hooks-cli/benches/user_guards.sh RUNS OLD_HOOKS NEW_HOOKS
#   Beside load: for i in 1 2; do (while :; do :; done) & done; then run it.
# Prints p50 and the max of RUNS (p99) in ms for each binary.
set -euo pipefail
N=${1:-11}; OLD=$2; NEW=$3
H=$(mktemp -d); P=$H/project; mkdir -p $H/.hermes $H/managed-scope $P $H/.claude/hooks
trap 'rm -rf "$H"' EXIT
echo "hooks_from: [claude]" > $H/.hermes/config.yaml
cat > $H/.claude/hooks/g.py <<'PY'
import json, os, subprocess, sys
data = json.load(sys.stdin)
env = dict(os.environ)
env["GIT_PAGER"] = "cat"
subprocess.run(["git", "-C", data["cwd"], "status", "--porcelain"], env=env, capture_output=True)
print(json.dumps({}))
PY
printf 'lint:\n\t@true\n' > $P/Makefile
(cd $P && git init -q . && git add Makefile && git -c user.email=a@b -c user.name=a commit -q -m i)
python3 - "$H" <<'PY'
import json, sys
h = sys.argv[1]
commands = ["python3 ~/.claude/hooks/g.py",
            "cat >/dev/null; echo 'make -s lint' | sh >/dev/null; x=make; $x -s lint >/dev/null; echo '{}'"]
hooks = [{"type": "command", "command": c, "failClosed": True} for c in commands]
json.dump({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": hooks}]}},
          open(h + "/.claude/settings.json", "w"))
PY
echo '{"tool_name":"terminal","args":{"command":"ls"},"task_id":"t"}' > $H/p.json
run() { (cd $P && HOME=$H HERMES_MANAGED_DIR=$H/managed-scope $1 --home $H/.hermes --project $P \
    ${2:-} emit pre_tool_call --json --payload-file $H/p.json >/dev/null 2>&1); }
run "$OLD" --accept-hooks; run "$NEW" --accept-hooks
for i in $(seq "$N"); do for b in "$OLD" "$NEW"; do
  s=$(date +%s%N); run "$b"; echo "$b $(( ($(date +%s%N) - s) / 1000000 ))"; done; done |
python3 -c '
import statistics, sys
d = {}
for line in sys.stdin:
    b, ms = line.split(); d.setdefault(b, []).append(int(ms))
for b, v in d.items():
    v.sort(); print(f"{b}: p50 {statistics.median(v):.0f} ms, p99 (max of {len(v)}) {v[-1]} ms")'
