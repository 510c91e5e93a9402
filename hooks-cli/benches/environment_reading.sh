#!/bin/bash
# What reading a project's Python environment costs (BENCHMARKS.md,
# "Reading a project's Python environment"): `hooks list --json` for a
# project hook that runs the environment's pip, and, given a template, its
# pytest, with two binaries in one run (ours and a baseline).
#
# Usage: hooks-cli/benches/environment_reading.sh OURS [BASELINE]
#   (release binaries: `cargo build --release -p hermes-hooks-cli --bin hooks`;
#    the baseline one built at another commit)
# Environment:
#   N=9                   runs per binary and figure
#   PASSES="quiet loaded" "loaded" starts two busy loops beside the runs
#   PYTEST_VENV=/path     a virtualenv holding pytest, copied in as `.venv`
#                         (its `bin/pytest` `#!` line is rewritten)
# The hooks are approved once (by OURS) before the runs.
# Prints per figure and binary: user CPU and wall, median and max.
set -eu
ours=$1; base=${2:-}
N=${N:-9}; PASSES=${PASSES:-"quiet loaded"}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

project() { # name command -> a git checkout with an ignored .venv and the hook
  local p=$work/$1; mkdir -p "$p/.claude" "$work/$1-home"
  printf 'hooks_from: [claude]\n' > "$work/$1-home/config.yaml"
  python3 -c 'import json,sys; print(json.dumps({"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":sys.argv[1]}]}]}}))' "$2" > "$p/.claude/settings.json"
  printf '.venv/\n' > "$p/.gitignore"; echo '# r' > "$p/README.md"
  printf 'print("{}")\n' > "$p/check.py"
}
commit() { # folder: commit it, then approve its hook (`list` binds approved hooks only)
  git -C "$1" init -q && git -C "$1" add -A && git -C "$1" -c user.email=a@b -c user.name=a commit -qm init
  printf '{"tool_name":"terminal","args":{"command":"ls"},"task_id":"t"}' > "$work/payload.json"
  (cd "$1" && HOME=$work "$ours" --home "$1-home" --project "$1" emit pre_tool_call --accept-hooks --payload-file "$work/payload.json" >/dev/null)
}

project pip '.venv/bin/pip list >/dev/null; echo "{}"'
python3 -m venv "$work/pip/.venv" >/dev/null; commit "$work/pip"
figures=pip
if [ -n "${PYTEST_VENV:-}" ]; then
  project pytest '.venv/bin/pytest -q -p no:cacheprovider tests >/dev/null; echo "{}"'
  cp -a "$PYTEST_VENV" "$work/pytest/.venv"
  sed -i "1s@.*@#!$work/pytest/.venv/bin/python@" "$work/pytest/.venv/bin/pytest"
  mkdir -p "$work/pytest/tests"; printf 'def test_a():\n    pass\n' > "$work/pytest/tests/test_a.py"
  commit "$work/pytest"; figures="pip pytest"
fi

measure() { # figure binary
  local p=$work/$1 times=$work/times; : > "$times"
  for _ in $(seq "$N"); do
    (cd "$p" && HOME=$work /usr/bin/time -a -o "$times" -f '%U %e' "$2" --home "$work/$1-home" --project "$p" list --json >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; })
  done
  python3 - "$1" "$2" "$times" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[3]) if l[:1].isdigit()]
u = sorted(r[0] for r in rows); w = sorted(r[1] for r in rows)
print(f"{sys.argv[1]:7} {sys.argv[2]}: n={len(rows)} user median {statistics.median(u):.2f} s max {u[-1]:.2f} s; wall median {statistics.median(w):.2f} s max {w[-1]:.2f} s")
PY
}
for pass in $PASSES; do
  echo "== $pass (load $(cut -d' ' -f1 /proc/loadavg))"
  pids=()
  if [ "$pass" = loaded ]; then
    for _ in 1 2; do sh -c 'while :; do :; done' & pids+=($!); done
  fi
  for figure in $figures; do
    for binary in "$ours" ${base:+"$base"}; do measure "$figure" "$binary"; done
  done
  [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}"
done
