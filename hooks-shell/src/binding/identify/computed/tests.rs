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
        r#"source "$(realpath .claude/hooks)/lib.sh""#,
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
