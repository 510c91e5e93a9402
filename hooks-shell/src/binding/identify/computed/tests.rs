//! Which commands run a name computed when they run, and which do not.

use super::computed_name;

#[test]
fn names_computed_when_it_runs_are_found() {
    for raw in [
        r#"sh "$(printf tools/g.%s sh)" a"#,
        "sh $(printf tools/g.%s sh) a",
        r#"sh "$(echo hs.g/sloot | rev)" a"#,
        r#"sh "$(echo TOOLS/G.SH | tr A-Z a-z)" a"#,
        "sh `cat name.txt`",
        r#"sh "tools/$(echo g).sh""#,
        r#"sh "$(echo -e 'tools/g\x2esh')""#,
        r#"N=$(printf tools/g.%s sh); sh "$N""#,
        r#"N=$(printf tools/g.%s sh) && bash ${N}"#,
        "read -r N < name.txt; sh \"$N\"",
        "printf -v N tools/g.%s sh; bash \"$N\"",
        r#"for f in $(ls tools); do sh "tools/$f"; done"#,
        r#"bash -c 'sh "$(printf tools/g.%s sh)"'"#,
        r#"eval "$(printf 'sh tools/g.%s' sh)""#,
        "eval sh \"$(printf tools/g.%s sh)\"",
        r#"$(printf tools/g.%s sh) a"#,
        r#"source <(printf 'sh tools/g.sh')"#,
        ". <(cat tools/x)",
        "bash < \"$(printf tools/g.%s sh)\"",
        "sh 2>/dev/null < \"$(printf tools/g.%s sh)\"",
        // Round 40: redirections (R40-1).
        "sh 0< \"$(printf tools/g.%s sh)\"",
        "< \"$(printf tools/g.%s sh)\" sh",
        "exec 3< \"$(printf tools/g.%s sh)\"; sh /dev/fd/3 a",
        ". /dev/stdin < \"$(printf tools/g.%s sh)\"",
        "bash <<< \"sh $(printf tools/g.%s sh) a\"",
        "source /dev/stdin <<< \"sh $(printf tools/g.%s sh)\"",
        // What carries computed text (R40-2).
        "set -- \"$(printf tools/g.%s sh)\"; sh \"$1\" a",
        "f() { sh \"$1\" a; }; f \"$(printf tools/g.%s sh)\"",
        "sh -c 'sh \"$1\" a' _ \"$(printf tools/g.%s sh)\"",
        "false; sh \"tools/g$?.sh\" a",
        "IFS=x; N=toolsxg.sh; set -- $N; sh \"$1/$2\" a",
        ": \"$(printf tools/g.%s sh)\"; sh \"$_\"",
        "[[ $(printf tools/g.%s sh) =~ (.*) ]]; sh \"${BASH_REMATCH[1]}\"",
        "N=tools/g.sh; declare -n R=N; sh \"$R\"",
        "a=(-- \"$(printf tools/g.%s sh)\"); sh \"${a[@]}\"",
        "printf -v \"a[0]\" tools/g.%s sh; sh \"${a[0]}\"",
        // Code kept or run another way (R40-3).
        "trap \"sh $(printf tools/g.%s sh) a\" EXIT",
        "X=$(printf tools/g.%s sh); trap \"sh $X a\" EXIT",
        "alias r=\"sh $(printf tools/g.%s sh)\"",
        "A=\\$; B=\"(printf tools/g.%s sh)\"; eval \"sh \\\"$A$B\\\" a\"",
        "find tools -name \"g*\" -exec sh {} a \\;",
        "flock /tmp/lock sh \"$(printf tools/g.%s sh)\" a",
        "sudo -u nobody sh \"$(printf tools/g.%s sh)\"",
        "jq -r .x | xargs -I{} sh -c 'sh {}'",
        // Round 41.
        "sh -s a < \"$(printf tools/g.%s sh)\"",
        "sh -- < \"$(printf tools/g.%s sh)\"",
        "sh /dev/stdin a < \"$(printf tools/g.%s sh)\"",
        "sh /dev/fd/3 a 3< \"$(printf tools/g.%s sh)\"",
        "exec {fd}< \"$(printf tools/g.%s sh)\"; bash /dev/fd/$fd a",
        "sh -c 'sh \"$0\" a' \"$(printf tools/g.%s sh)\"",
        "sh -ec 'sh \"$1\" a' _ \"$(printf tools/g.%s sh)\"",
        "printf -vX tools/g.%s sh; sh \"$X\" a",
        "hash -p \"$PWD/$(printf tools/g.%s sh)\" foo; foo a",
        "run.it() { sh \"$1\" a; }; run.it \"$(printf tools/g.%s sh)\"",
        "X=$(printf tools/g.%s sh); builtin eval \"sh $X a\"",
        ". .claude/hooks/lib.sh \"$(printf tools/g.%s sh)\"",
        "PS4='$(sh $(printf tools/g.%s sh) a >&2)'; set -x; :",
        "X='a[$(sh $(printf tools/g.%s sh) a >&2)]'; echo $(( X ))",
        "X='$(sh $(printf tools/g.%s sh) a)'; : \"${X@P}\"",
        "set -- tools g sh; sh \"$1/$2.$3\" a",
        "X=tools/g.XX; sh \"${X%XX}sh\" a",
        "HOME=$PWD/tools; sh ~/g.sh a",
        "exec bash \"$(printf tools/g.%s sh)\"",
        // Round 42.
        r#"source "$(realpath .claude/hooks)/lib.sh""#,
        "sh \"$(dirname tools/g.sh/x)\" a",
        "sh \"$(cd tools && pwd)/g.sh\" a",
        "X=sh; $X \"$(printf tools/g.%s sh)\" a",
        "r+() { sh \"$1\" a; }; r+ \"$(printf tools/g.%s sh)\"",
        "a() { \"$@\"; }; b() { a \"$@\"; }; b sh \"$(printf tools/g.%s sh)\"",
        "r() { shift; \"$@\"; }; r x sh \"$(printf tools/g.%s sh)\"",
        "printf -v PS4 '$(sh tools/g.sh)'; set -x; :",
        "su -c 'sh \"$(printf tools/g.%s sh)\"' nobody",
        "strace -f sh \"$(printf tools/g.%s sh)\"",
        "HOME=$PWD/tools; cd; sh g.sh a",
        "env -u FOO BASH_ENV=\"$(printf tools/g.%s sh)\" bash -c :",
        "sh >/dev/null \"$(printf tools/g.%s sh)\"",
        "echo hs.g/sloot | rev | xargs sh",
        "cat list.txt | xargs sh",
        "echo \"$(cat list.txt)\" | xargs sh",
        "echo 'hs.g/sloot hs' | rev | sh",
        "jq -r .tool_input.command | bash",
        r#"sh "tools/$((RANDOM % 2)).sh""#,
        "sh tools/g$RANDOM.sh",
        r#"exec env X=1 sh "$(printf tools/g.%s sh)""#,
        r#"python3 "$(printf tools/g.%s py)""#,
        r#"cd "$(dirname "$(printf a/b)")" && sh "$(echo g.sh | cat)""#,
        "sh ${X:-$(printf tools/g.%s sh)}",
        r#"sh "${X:-$(printf tools/g.%s sh)}""#,
        r#"cd "$(printf tools)" && sh g.sh"#,
        r#"sh "tools/$(uname).sh""#,
        r#"PATH="$(printf tools):$PATH" lint"#,
        r#"node -r "$(printf ./x)" tools/g.js"#,
        r#"python3 -W ignore "$(printf tools/g.%s py)""#,
        "while read -r f; do sh \"$f\"; done < list.txt",
        r#"{ sh "$(printf tools/g.%s sh)"; }"#,
        // Round 43: names joined from pieces no reading resolves (R42-1).
        r#"sh "tools/g${NOPE}.sh" a"#,
        "sh tools/g$NOPE.sh a",
        r#"for X in tools/g.XX; do sh "${X%XX}sh" a; done"#,
        r#"X=1; sh "${X:+tools/g.sh}" a"#,
        "sh tools/g$#.sh a",
        "sh tools/g$OPTIND.sh a",
        r#"X=ab; sh "tools/g${#X}.sh" a"#,
        r#"X=tools/g; X="$X.sh"; sh "$X" a"#,
        r#"X=tools/g.XX; X=tools/g.sh; sh "$X" a"#,
        r#"L=lib; . "$(dirname "$0")/$L.sh""#,
        "command_not_found_handle() { sh \"tools/$1.sh\" a; }; g",
        // Folders the text chose, runners, strings (R42-2, R42-4, R42-5).
        "CDPATH=\"$(printf tools)\"; cd sub >/dev/null; sh g.sh a",
        "run() { flock /tmp/l \"$@\"; }; run sh \"$(printf tools/g.%s sh)\" a",
        "sh -c 'g() { sh \"$1\" a; }; g \"$(printf tools/g.%s sh)\"'",
        "exec -a \"$(printf tools/g.%s sh)\" bash -c 'sh \"$0\" a'",
        "mapfile -t -C \"sh $(printf tools/g.%s sh) a #\" -c 1 arr <<< x",
        "readarray -C\"sh $(printf tools/g.%s sh)\" arr <<< x",
        // Round 43.
        "declare -l X=TOOLS/G.SH; sh \"$X\" a",
        "f() { local -l X=TOOLS/G.SH; sh \"$X\" a; }; f",
        "declare -l X; X=TOOLS/G.SH; sh \"$X\" a",
        "declare -l CDPATH=TOOLS; cd sub; sh g.sh a",
        "set -- \"$(printf tools/g.%s sh)\"; for a do sh \"$a\" x; done",
        "f() { for a do sh \"$a\" x; done; }; f \"$(printf tools/g.%s sh)\"",
        "exec -ca \"$(printf tools/g.%s sh)\" bash -c 'sh \"$0\" a'",
        "exec -a\"$(printf tools/g.%s sh)\" bash -c 'sh \"$0\" a'",
        "command exec -a \"$(printf tools/g.%s sh)\" bash -c 'sh \"$0\" a'",
        "mapfile -tC \"sh $(printf tools/g.%s sh) a #\" -c1 arr <<< x",
        "coproc sh \"$(printf tools/g.%s sh)\" a </dev/null; wait",
        "shopt -s expand_aliases\nalias r=sh\nr \"$(printf tools/g.%s sh)\" a",
        "shopt -s extglob\nsh tools/@(g).sh a",
        "PATH=\"$PWD/tools:$PATH\"; R=g; \"$R.sh\" a",
        "git -c \"alias.x=!sh \\$(printf tools/g.%s sh) a\" x",
        "make -s -f /dev/stdin <<'E'\nx:\n\t@sh $$(printf tools/g.%s sh) a\nE",
        "printf 'x:\\n\\t@true\\n' | make -sf - x",
        "make --file=/dev/fd/3 x 3< tools/mk",
        "git ls-files | xargs node -r ./ok.js",
        "git ls-files | xargs python3 -m",
        "git ls-files | xargs -I{} python3 {} a",
        "python3 -c 'import os; os.system(\"sh \" + \"tools/g.\" + \"sh a\")'",
        "awk 'BEGIN{system(\"sh \" sprintf(\"tools/g.%s\",\"sh\") \" a\")}'",
        "perl -e 'exec \"sh\", sprintf(\"tools/g.%s\", \"sh\"), \"a\"'",
        "node -e 'require(\"child_process\").execSync(\"sh tools/g.\" + \"sh a\")'",
        // Round 44: quotes nested in `${…}`, `$'\''` (R44-1).
        "x=a; echo \"${x#\"'\"}\" >/dev/null; sh \"$(printf tools/g.%s sh)\" a",
        "echo \"a\" $'d\\'e'; sh \"$(printf tools/g.%s sh)\" a",
        "x=a; echo \"${x:-\"'\"}\"; sh \"$(printf tools/g.%s sh)\" a",
        "x=a; echo \"${x#'}'}\"; sh tools/g.sh a",
        "x=a; echo ${x#\"'\"} >/dev/null; sh \"$(printf tools/g.%s sh)\" a",
        "x=a; echo ${x/\"'\"/} >/dev/null; sh \"$(printf tools/g.%s sh)\" a",
        // Round 44: more spellings (R44-4, R44-5, R44-7..R44-10, R44-14).
        "BASH_ARGV0=tools/x; . \"$(dirname \"$0\")/g.sh\"",
        "shopt -s expand_aliases\nalias r='nice ' s=sh\nr s \"$(printf tools/g.%s sh)\" a",
        "command -p exec -a \"$(printf tools/g.%s sh)\" bash -c 'sh \"$0\" a'",
        "sh tools/[[:lower:]].sh a",
        "for f in tools/[[:lower:]].sh; do sh \"$f\" a; done",
        "shopt -s \"ext\"glob\nsh tools/@(g).sh a",
        "sh /proc/self/cwd/tools/g.sh a",
        "shopt -s nocaseglob\nsh tools/G.s? a",
        "flock -c \"sh $(printf tools/g.%s sh) a\" /tmp/l",
        "fakeroot sh \"$(printf tools/g.%s sh)\" a",
        "read 'a[$(sh \"$(printf tools/g.%s sh)\" a)]' <<< 1",
        "declare 'a[$(sh \"$(printf tools/g.%s sh)\" a)]=1'",
        "let 'a[$(sh \"$(printf tools/g.%s sh)\" a)]=1'",
        // Round 44: a line continuation before a blank (R44-2).
        "sh \\\n \"$(printf tools/g.%s sh)\" a",
        "sh \\\n\t\"tools/g${NOPE}.sh\" a",
        "f() { sh \\\n  \"$1\" a; }; f \"$(printf tools/g.%s sh)\"",
        "CLAUDE_PROJECT_DIR=\"$(printf %s/tools \"$PWD\")\"; sh \"$CLAUDE_PROJECT_DIR\"/g.sh a",
    ] {
        assert!(computed_name(raw).is_some(), "{raw}");
    }
}

#[test]
fn places_and_data_are_not_computed_names() {
    for raw in [
        r#""$(git rev-parse --show-toplevel)"/.claude/hooks/check.sh"#,
        "$(git rev-parse --show-toplevel)/.claude/hooks/check.sh",
        r#"bash "$(dirname "$0")/run.sh" safety-check.sh"#,
        r#"cd "$(dirname "$0")" && ./x.sh"#,
        r#"sh "$(cd "$(dirname "$0")" && pwd)/x.sh""#,
        r#""$(command -v python3)" tools/x.py"#,
        "$(npm bin)/eslint .",
        r#"INPUT=$(cat); CMD=$(echo "$INPUT" | jq -r .tool_input.command); echo "$CMD" | grep -q 'rm -rf' && exit 2"#,
        r#"FILE=$(jq -r .tool_input.file_path); npx prettier --write "$FILE""#,
        "echo \"$(date) ran\" >> ~/.hook.log; sh tools/g.sh",
        "cat tools/g.sh | sh",
        "echo 'sh tools/g.sh' | bash",
        "sh tools/g.sh || echo failed",
        "python3 -c 'import sys; print(sys.argv)' \"$(date)\"",
        "git diff --name-only | grep -E '\\.py$' | xargs -r python3 -m py_compile",
        "git ls-files '*.js' | xargs node tools/lint.js",
        "sh -e tools/g.sh",
        r#"sh "${CLAUDE_PROJECT_DIR:-.}/tools/g.sh""#,
        r#"X="$(git rev-parse --show-toplevel)"; bash "$X/tools/g.sh""#,
        r#"{ sh tools/g.sh; } 2>&1"#,
        r#"node -r ./setup.js tools/g.js"#,
        "PATH=$(echo .v*/bin):$PATH lint",
        r#". "$(brew --prefix)/etc/profile.d/z.sh""#,
        r#"SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"; bash "$SCRIPT_DIR/x.sh""#,
        r#"D="$( cd -- "$( dirname -- "${BASH_SOURCE[0]}" )" &> /dev/null && pwd )"; cd "$D"; python3 c.py"#,
        r#"D=$(cd "$(dirname "$0")" >/dev/null 2>&1 && pwd); sh "$D/x.sh" 2>&1"#,
        "sh tools/g.sh > /tmp/out 2>&1 < /dev/null",
        "echo tools/g.sh | xargs -I{} sh {} a",
        // Round 40's false refusals (R40-5, R40-6, R40-7).
        r#"PROJECT_DIR="${CLAUDE_PROJECT_DIR:-$(pwd)}"; cd "$PROJECT_DIR"; . "$PROJECT_DIR/.claude/hooks/lib.sh""#,
        r#"sh "${CLAUDE_PROJECT_DIR:-$(git rev-parse --show-toplevel)}/tools/g.sh""#,
        r#"bash -c 'cd "$(git rev-parse --show-toplevel)" && npm test'"#,
        "sh -c 'echo $$ > /tmp/hook.pid'",
        r#"bash -c 'echo "$(date -Is) $(jq -r .tool_name)" >> ~/.claude/tools.log'"#,
        r#"bash -c 'CMD=$(jq -r .tool_input.command); [[ $CMD == *"rm -rf"* ]] && exit 2'"#,
        r#"export PATH="$PATH:$(go env GOPATH)/bin"; lint"#,
        r#"PATH="$HOME/.local/bin:$(go env GOPATH)/bin:$PATH" lint"#,
        r#""$(pnpm bin)/eslint" ."#,
        "$(yarn bin)/eslint .",
        r#""$(poetry env info -p)/bin/python" x.py"#,
        r#""$(git rev-parse --git-path hooks)/pre-commit""#,
        r#"eval "$(brew shellenv)"; lint"#,
        r#"eval "$(pyenv init -)"; python3 x.py"#,
        r#"jq -r .tool_input.file_path | xargs -I{} sh -c "npx prettier --write {}""#,
        r#"FILE=$(jq -r .tool_input.file_path); bash -n "$FILE""#,
        "jq -r .x <<< \"$INPUT\"",
        "INPUT=$(cat); jq -r .x <<< \"$INPUT\"",
        "f() { echo \"$1\"; }; f \"$(date)\"",
        // Round 41's false refusals (R41-7..9), and a cd in a substitution.
        r#"run() { echo "+ $*" >&2; "$@"; }; run npx prettier --write "$(jq -r .tool_input.file_path)""#,
        r#"IFS= read -r input; "$CLAUDE_PROJECT_DIR/scripts/hook.sh""#,
        r#"while IFS= read -r f; do echo "$f"; done; "$CLAUDE_PROJECT_DIR/scripts/hook.sh""#,
        r#"bash -lc 'cd "$(git rev-parse --show-toplevel)" && npm test'"#,
        r#"own=$(dirname "$F"); [ "$(cd "$(dirname "$f")" && pwd -P)" = "$own" ] && sh tools/g.sh"#,
        r#"sh "${CLAUDE_PROJECT_DIR%/}/tools/g.sh""#,
        // Round 42's false refusals (R42-10..12).
        "a() { \"$@\"; }; b() { a \"$@\"; }; b npx prettier --write x",
        "set -euo pipefail; IFS=$'\\n\\t'; sh \"$CLAUDE_PROJECT_DIR/tools/g.sh\"",
        "OLDIFS=$IFS; IFS=,; read -r a b <<< \"$x\"; IFS=$OLDIFS; sh \"$CLAUDE_PROJECT_DIR/tools/g.sh\"",
        r#"cmd=(npx prettier --write); "${cmd[@]}" "$f""#,
        "X=npx; $X prettier --write .",
        // What round 43's reading of pieces keeps reading as before.
        r#"ROOT=$(git rev-parse --show-toplevel); cd "$ROOT"; ./scripts/x.sh"#,
        r#"DIR="$CLAUDE_PROJECT_DIR"; cd "$DIR" && ./x.sh"#,
        r#"for f in a.sh b.sh; do sh "$f"; done"#,
        r#""${PYTHON:-python3}" x.py"#,
        r#"sh "${S:-tools/step.sh}""#,
        r#"PYTHONPATH=lib${PYTHONPATH:+:$PYTHONPATH} python3 check.py"#,
        r#"D=x; D=lib; PYTHONPATH=$D python3 check.py"#,
        r#"cd "$HERMES_TEST_REPO" && sh tools/guard.sh"#,
        r#"for f in .claude/hooks/d/*.sh; do . "$f"; done"#,
        r#"for f in "$CLAUDE_PROJECT_DIR"/.claude/hooks/d/*.sh; do . "$f"; done"#,
        "PY=${PYTHON:-python3}; \"$PY\" -m black --quiet x.py",
        r#""$EDITOR" notes.txt"#,
        r#"PATH="$HOME/.local/bin:$PATH"; lint"#,
        r#"S=tools/g.sh; sh "$S" a"#,
        r#"sh "$CLAUDE_PROJECT_DIR/tools/$NAME/g.sh""#,
        r#"cd "${CLAUDE_PROJECT_DIR:-$(pwd)}" && ./x.sh"#,
        "exec -a hook bash x.sh",
        "mapfile -t files < <(git diff --name-only); npx prettier --write \"${files[@]}\"",
        "CDPATH=; cd /tmp && sh x.sh",
        "declare -l tool=$(jq -r .tool_name); echo \"$tool\"",
        "for a do echo \"$a\"; done",
        "exec -a name python3 x.py",
        "coproc cat; echo x >&\"${COPROC[1]}\"",
        r#"f=$(jq -r .tool_input.file_path); rel="${f#"$CLAUDE_PROJECT_DIR"/}"; echo "$rel""#,
    ] {
        assert_eq!(computed_name(raw), None, "{raw}");
    }
}

#[test]
fn text_nested_too_deep_to_read_is_refused() {
    let deep = format!("echo {}x{}", "$(".repeat(3000), ")".repeat(3000));
    let why = computed_name(&deep).expect("refused");
    assert!(why.contains("deeper"), "{why}");
    let quoted = format!("echo {}x{}", "\"$(".repeat(50), ")\"".repeat(50));
    assert!(computed_name(&quoted).is_some());
}

#[test]
fn git_in_a_repository_named_when_it_runs_is_found() {
    // Round 50, k25: the settings of a repository the text names when it
    // runs (`core.fsmonitor` of a nested repository) bind nothing.
    for text in [
        "git -c core.fsmonitor=\"$(printf x)\" status",
        "cd \"$(printf s%s ub)\" && git status; cd ..; sh ~/bin/g.sh",
        "git -C \"$(printf s%s ub)\" status",
        "git --git-dir=\"$(printf s%s ub)/.git\" status",
        "GIT_DIR=\"$(printf s%s ub)/.git\" git status",
        "export GIT_DIR=\"$(printf s%s ub)/.git\"; git status",
    ] {
        assert!(computed_name(text).is_some(), "{text}");
    }
    for text in [
        "cd \"$(git rev-parse --show-toplevel)\" && git status",
        "git -C sub status; git -C \"$CLAUDE_PROJECT_DIR\" diff",
        "for d in */; do git -C \"$d\" status; done",
        "export GIT_DIR=alt.git; git status",
        "git commit -qm \"$(date)\"",
        "git -c alias.x=\"!sh tools/g.sh\" x",
        "git -c include.path=$PWD/tools/x.cfg status",
    ] {
        assert_eq!(computed_name(text), None, "{text}");
    }
}

#[test]
fn text_a_reader_of_code_is_given_names_no_file_it_writes() {
    // Round 51's text reading, not over-read: a copy made by inline code
    // (the copy rule's), a function's words (a command), a shell's
    // here-string (its code), a path built from a variable in text.
    for text in [
        "rm -rf /tmp/c; python3 -c \"import shutil; shutil.copytree('.', '/tmp/c')\"; PYTHONPATH=/tmp/c/lib python3 check.py",
        "rm -rf /tmp/c; cp -r lib /tmp/c; python3 -c \"import sys; sys.path.insert(0, '/tmp/c'); import helper\"",
        "try() { shift; ( \"$@\" ); }\ntry GIT-HOOK sh -c 'printf \"#!/bin/sh\\ntouch planted\\n\" > .git/hooks/pre-commit'",
        "bash -c 'bash <<< \"sh $HOME/bin/guard.sh\"'",
        "gh pr comment -b \"ran tools/g.sh\"; sh tools/g.sh",
        "watch -n1 \"sh tools/g.sh\"; flock /tmp/l sh -c \"sh tools/g.sh\"",
        "true || pip install --no-deps \"p @ file://$CLAUDE_PROJECT_DIR/pkg\"",
        "rm -rf /tmp/c; cp -r ./* /tmp/c/ 2>/dev/null || { mkdir -p /tmp/c; cp -r ./* /tmp/c/; }; python3 /tmp/c/check.py",
    ] {
        assert_eq!(computed_name(text), None, "{text}");
    }
}

#[test]
fn data_the_text_writes_and_never_runs_is_its_own() {
    // Round 49, U1: bound, it asked again on every run.
    for (text, data) in [
        (
            "cat > /tmp/in.json; jq . /tmp/in.json; sh tools/g.sh < /tmp/in.json",
            vec!["/tmp/in.json"],
        ),
        (
            "git diff > /tmp/d.patch; grep -q SECRET /tmp/d.patch",
            vec!["/tmp/d.patch"],
        ),
        (
            "cp ~/.claude/hooks/lib.sh ~/.cache/cfg.sh; sh tools/g.sh",
            vec![],
        ),
        ("cat > /tmp/y.sh; sh /tmp/y.sh", vec![]),
        ("cd tools; date > out.txt; sh g.sh", vec![]),
        (
            "date >> ~/.claude/hook.log; sh tools/g.sh",
            vec!["~/.claude/hook.log"],
        ),
    ] {
        assert_eq!(super::data_written(text), data, "{text}");
    }
}

#[test]
fn an_arithmetic_expansion_is_part_of_its_word() {
    // Round 51, z50: its parentheses cut the word in three.
    assert!(computed_name("sh tools$((0))/g.sh").is_some());
    assert!(computed_name("sh \"tools$((1 - 1))/g.sh\"").is_some());
    assert_eq!(computed_name("n=$((1 + 2)); sh tools/g.sh \"$n\""), None);
}

#[test]
fn a_loop_over_names_in_a_computed_folder_is_found() {
    // Round 51, g13, g43, g53.
    for text in [
        "cd \"$(printf to%s ols)\" && for f in *; do sh \"$f\"; done",
        "d=$(printf to%s ols); cd \"$d\" && for f in *.sh; do sh \"$f\"; done",
        "(cd \"$(printf to%s ols)\"; for f in *; do sh \"$f\"; done)",
    ] {
        assert!(computed_name(text).is_some(), "{text}");
    }
    assert_eq!(
        computed_name("cd tools && for f in *; do sh \"$f\"; done"),
        None
    );
}

#[test]
fn a_script_a_program_reads_by_a_computed_name_is_found() {
    // Round 51: sed, gdb, vim, sqlite3, make, ed, tar's command.
    for text in [
        "echo | sed -f \"$(printf tools/s.%s sed)\"",
        "sed --file=\"$(printf tools/s.%s sed)\" x",
        "gdb -batch -x \"$(printf tools/cm%s ds)\"",
        "vim -es -u NONE -S \"$(printf tools/v.%s vim)\" -c q",
        "sqlite3 :memory: \".read $(printf tools/i.%s sql)\"",
        "sqlite3 -init \"$(printf tools/i.%s sql)\" :memory: .quit",
        "make -s -C \"$(printf to%s ols)\"",
        "d=$(printf to%s ols); make --directory=\"$d\"",
        "ed -s README < \"$(printf tools/e.%s ed)\"",
        "tar cf - tools | tar xf - --to-command=sh",
        "cd \"$(printf to%s ols)\" && make -s",
        // Round 57, H57-4: a function, a launcher, a program found when
        // it runs, a function moving to its argument.
        "f=$(jq -r .x); lint(){ make -s; }; cd \"$(dirname \"$f\")\" && lint",
        "f=$(jq -r .x); cd \"$(dirname \"$f\")\" && echo lint | xargs make -s",
        "f=$(jq -r .x); cd \"$(dirname \"$f\")\" && flock /tmp/l make -s",
        "f=$(jq -r .x); cd \"$(dirname \"$f\")\" && \"$(command -v make)\" -s",
        "f=$(jq -r .x); lint(){ cd \"$1\" && make -s; }; lint \"$(dirname \"$f\")\"",
        "jq -r .x | xargs -I{} make -s -C {} lint",
        // Round 56, a41: a substitution after the move runs there too.
        "cd \"$(printf to%s ols)\" && echo \"$(make -s)\"",
        "cd \"$(printf to%s ols)\"; x=`make -s`",
        "python3 -c \"import shutil; shutil.copytree('to' + 'ols', '/tmp/d')\"; sh /tmp/d/g.sh",
    ] {
        assert!(computed_name(text).is_some(), "{text}");
    }
    for text in [
        "echo | sed -f tools/s.sed",
        "make -s -C tools lint",
        "cd tools && make -s",
        "f=$(jq -r .x); echo \"$(make -s)\"; cd \"$(dirname \"$f\")\" && ls",
        "lint(){ make -s; }; lint; cd \"$CLAUDE_PROJECT_DIR\" && lint",
        "jq -r .tool_input.file_path | xargs npx prettier --write",
        "jq -r .x | xargs -r npx --no-install prettier --check",
        "sed -i \"s/a/b/\" \"$f\"",
        "tar -C \"$D\" -xf /tmp/x.tar",
    ] {
        assert_eq!(computed_name(text), None, "{text}");
    }
}

#[test]
fn a_file_a_function_writes_by_its_parameter_is_found() {
    // Round 51, x30–x46: what each call gives the parameter.
    let copy = "\"$(printf tools/g.%s sh)\"";
    for body in [
        "save() { cat C > \"$1\"; }; save /tmp/y.sh; sh /tmp/y.sh",
        "save() { cp C \"$1\"; }; save /tmp/y.sh; sh /tmp/y.sh",
        "save() { local d=$1; cat C > \"$d\"; }; save /tmp/y.sh; sh /tmp/y.sh",
        "save() { cat \"$2\" > \"$1\"; }; save /tmp/y.sh C; sh /tmp/y.sh",
        "save() { tee \"$1\" >/dev/null; }; save /tmp/y.sh < C; sh /tmp/y.sh",
        "w() { cat > \"$@\"; }; w /tmp/y.sh < C; sh /tmp/y.sh",
        "run() { sh \"$1\"; }; cp C /tmp/y.sh; run /tmp/y.sh",
        "f() { bash < \"$1\"; }; cp C /tmp/y.sh; f /tmp/y.sh",
    ] {
        let text = body.replace('C', copy);
        assert!(computed_name(&text).is_some(), "{text}");
    }
    for text in [
        "log() { echo \"$2\" >> \"$1\"; }; log /tmp/hook.log start; sh tools/g.sh",
        "save() { jq . > \"$1\"; }; save /tmp/in.json; sh tools/g.sh /tmp/in.json",
    ] {
        assert_eq!(computed_name(text), None, "{text}");
    }
}

#[test]
fn a_file_run_inside_a_git_folder_elsewhere_is_found() {
    // Round 51, H1: a copy's or a link's `.git` folder.
    for text in [
        "cp -r tools /tmp/d; sh /tmp/d/.git/x.sh",
        "ln -sfn \"$PWD\" /tmp/L; sh /tmp/L/.git/x.sh",
    ] {
        assert!(computed_name(text).is_some(), "{text}");
    }
    assert_eq!(computed_name("sh .git/hooks/pre-commit"), None);
}
