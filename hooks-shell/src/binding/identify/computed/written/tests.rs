//! Tests of files the text writes and then runs or hands over.

use super::super::computed_name;

#[test]
fn a_file_the_text_writes_and_runs_is_found() {
    for text in [
        "printf 'sh tools/g.%s a\\n' sh > ~/.cache/y.sh; sh ~/.cache/y.sh; rm -f ~/.cache/y.sh",
        "echo c2g= | base64 -d > \"$HOME/bin/y\"; chmod +x ~/bin/y; ~/bin/y",
        "printf 'x' | tee /tmp/y.sh >/dev/null; . /tmp/y.sh",
        "printf 'all:\\n\\tsh x' >~/.cache/y.mk; make -s -f ~/.cache/y.mk lint",
        // Copied or made by a command that writes files (round 49).
        "cp \"$(printf tools/g.%s sh)\" /tmp/y.sh; sh /tmp/y.sh; rm -f /tmp/y.sh",
        "cp \"$(ls tools/g*)\" /tmp/y.sh && sh /tmp/y.sh",
        "install -m 755 \"$(ls tools/g*)\" ~/bin/y; ~/bin/y",
        "dd if=\"$(ls tools/g*)\" of=/tmp/y.sh; . /tmp/y.sh",
        "awk '{print > \"/tmp/y.sh\"}' tools/g*; bash /tmp/y.sh",
        "python3 -c \"import shutil, glob; shutil.copy(glob.glob('tools/g*')[0], '/tmp/y.sh')\"; sh /tmp/y.sh",
        "cp \"$(ls tools/g*)\" ~/bin/lint; lint",
        // Its target computed when it runs.
        "D=$(printf /tmp); cat tools/g* > \"$D/y.sh\"; sh /tmp/y.sh",
        "D=$(mktemp -d); cp \"$(ls tools/g*)\" \"$D\"; sh \"$D/g.sh\"",
        "cp \"$(ls tools/g*)\" /tmp/d/; sh /tmp/d/g.sh",
        "T=$(mktemp); cp \"$(ls tools/g*)\" \"$T\"; sh \"$T\"",
        // Named another way, or handed over other than as a script
        // (round 49).
        "T=/tmp/y.sh; cat \"$(ls tools/g*)\" > $T; sh /tmp/y.sh",
        "T=/tmp/y.sh; cat \"$(ls tools/g*)\" > /tmp/y.sh; sh $T",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; sh /tmp//y.sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; bash -o errexit /tmp/y.sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; sh +o nounset /tmp/y.sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.mk; make -sf /tmp/y.mk",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; BASH_ENV=/tmp/y.sh bash -c :",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; sh < /tmp/y.sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; cat /tmp/y.sh | sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; echo /tmp/y.sh | xargs sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; cd /tmp && sh y.sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; cat /tmp/y.sh | . /dev/stdin",
        "cat \"$(ls tools/g*)\" > /tmp/y.js; node -r /tmp/y.js x.js",
        "f() { sh /tmp/y.sh; }; cat \"$(ls tools/g*)\" > /tmp/y.sh; f",
        "{ cat \"$(ls tools/g*)\"; } > /tmp/y.sh; sh /tmp/y.sh",
        "( cat \"$(ls tools/g*)\" ) > /tmp/y.sh; sh /tmp/y.sh",
        "exec 3>/tmp/y.sh; cat \"$(ls tools/g*)\" >&3; sh /tmp/y.sh",
        "cat \"$(ls tools/g*)\" 1<>/tmp/y.sh; sh /tmp/y.sh",
        "sort -o /tmp/y.sh \"$(ls tools/g*)\"; sh /tmp/y.sh",
        "mkdir -p /tmp/d; cp -t /tmp/d \"$(ls tools/g*)\"; sh /tmp/d/g.sh",
        "cp /dev/stdin /tmp/y.sh < \"$(ls tools/g*)\"; sh /tmp/y.sh",
        "cat \"$(ls tools/g*)\" | cp /dev/stdin /tmp/y.sh; sh /tmp/y.sh",
        "vim -es -c 'w! /tmp/y.sh' -c q \"$(ls tools/g*)\"; sh /tmp/y.sh",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; python3 -c \"import subprocess; subprocess.run(['sh', '/tmp/y.sh'])\"",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; awk 'BEGIN { system(\"sh /tmp/y.sh\") }'",
        "cat \"$(ls tools/g*)\" > /tmp/y.sh; sh /tmp/y.s?",
        "D=/tmp; cat \"$(ls tools/g*)\" > /tmp/y.sh; sh $D/y.sh",
        // Run before it is written, in a loop.
        "for i in 1 2; do sh /tmp/y.sh; cp \"$(ls tools/g*)\" /tmp/y.sh; done",
        // Round 51: `>|`; text naming a written file, given or piped to a
        // program that runs it; writes through text; the words xargs adds;
        // `--option=VALUE`, `${NAME:-VALUE}`, archives, `/dev/fd/N`.
        "cat \"$(printf tools/g.%s sh)\" >| /tmp/a.sh; sh /tmp/a.sh",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; echo | sed \"1e sh /tmp/a.sh\"",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; vim -es -u NONE -c \"!sh /tmp/a.sh\" -c q",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; sqlite3 :memory: \".shell sh /tmp/a.sh\"",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; echo \"exec sh /tmp/a.sh\" | tclsh",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; printf \"!sh /tmp/a.sh\\nq\\n\" | ed -s",
        "echo \"file copy -force [lindex [glob tools/g*] 0] /tmp/a.sh\" | tclsh; sh /tmp/a.sh",
        "sqlite3 :memory: \"select writefile('/tmp/a.sh', readfile('tools/' || 'g.sh'))\"; sh /tmp/a.sh",
        "printf \"w /tmp/a.sh\\nq\\n\" | ed -s \"$(printf tools/g.%s sh)\"; sh /tmp/a.sh",
        "echo \"require('fs').copyFileSync('tools/'+String.fromCharCode(103)+'.sh','/tmp/a.sh')\" | node; sh /tmp/a.sh",
        "python3 - <<E\nimport shutil\nshutil.copy(\"tools/\"+chr(103)+\".sh\", \"/tmp/a.sh\")\nE\nsh /tmp/a.sh",
        "printf tools/g.%s sh | xargs -I{} cp {} /tmp/a.sh; sh /tmp/a.sh",
        "mkdir -p /tmp/d; cp --target-directory=/tmp/d \"$(printf tools/g.%s sh)\"; sh /tmp/d/g.sh",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; sh ${TMPDIR:-/tmp}/a.sh",
        "tar cf /tmp/x.tar \"$(printf tools/g.%s sh)\"; mkdir -p /tmp/x; tar xf /tmp/x.tar -C /tmp/x; sh /tmp/x/tools/g.sh",
        "tar cf - \"$(printf tools/g.%s sh)\" | tar xf - --transform \"s,.*,t.sh,\" -C /tmp; sh /tmp/t.sh",
        "cp \"$(printf tools/g.%s sh)\" /tmp/a.sh; sh /dev/fd/3 3< /tmp/a.sh",
    ] {
        assert!(computed_name(text).is_some(), "{text}");
    }
    for text in [
        "jq -c . >> ~/.claude/log.jsonl; sh tools/g.sh",
        "sh tools/g.sh > out.txt; cat out.txt",
        "test -f tools/g.sh && sh tools/g.sh",
        "chmod +x tools/g.sh; git diff --quiet tools/g.sh; tools/g.sh; rm -f /tmp/x",
        "D=$(printf /tmp); date >> \"$D/hook.log\"; sh tools/g.sh",
        "mkdir -p ~/.cache/ruff; ruff check .",
        ". lib/common.sh; cp out.txt /tmp/out.txt; sh tools/g.sh",
        "cp -r tools /tmp/backup; sh tools/g.sh",
        "tar czf /tmp/backup.tgz tools; sh tools/g.sh",
        // A file written, then read as data or shown.
        "git diff > /tmp/d.patch; python3 check.py /tmp/d.patch",
        "date >> /tmp/log; cat /tmp/log | tail -n 1; rm -f /tmp/log",
        "jq . > /tmp/in.json; sh tools/g.sh /tmp/in.json",
        "cd tools && sh g.sh > out.txt; cd .. && cat tools/out.txt",
        "date >> /tmp/log; python3 -c \"print(open('/tmp/log').read())\"",
        // A command its words name, a compiler's output, a copy of the
        // project (its binding's own).
        "retry() { \"$@\"; }; retry sh tools/g.sh \"$(cat)\"",
        "dotenv run -- python3 check.py",
        "cc -o \"$TMPDIR/c\" tools/check.c && \"$TMPDIR/c\"",
        "D=/tmp/r29; cp -r . \"$D\"; PYTHONPATH=$D/lib python3 check.py",
        "f=$(jq -r .tool_input.file_path); case \"$f\" in *.py) black -q \"$f\";; esac; sh tools/g.sh",
        "f=$(jq -r .tool_input.file_path); black -q \"$f\"; ruff check \"$f\"; sh tools/g.sh",
        "f=$(jq -r .tool_input.file_path); npx prettier --write \"$f\" && npx eslint --fix \"$f\"",
        "T=$(mktemp); trap 'rm -f \"$T\"' EXIT; git diff > \"$T\"; python3 check.py \"$T\"",
        "D=/tmp/r29; cp -r ./* \"$D/\"; python3 \"$D/check.py\"",
        "cp tools/other.sh tools/guard.sh && sh tools/guard.sh",
        // Round 51: text naming no written file, a commit's message, an
        // interpreter's data, an archive of the project.
        "sed -i \"s/a b/c/\" tools/g.sh; sh tools/g.sh",
        "echo \"select 1\" | sqlite3 db.sqlite; sh tools/g.sh",
        "python3 - <<E\nprint(\"hi\")\nE\nsh tools/g.sh",
        "git commit -qm \"fix bug\"; sh tools/g.sh",
        "tar cf - . | tar xf - -C \"$D\"; python3 \"$D/check.py\"",
        "git diff > /tmp/d.patch; cat /tmp/d.patch | python3 check.py",
        "date >> /tmp/log; cat /tmp/log | tail -n 1",
    ] {
        assert_eq!(computed_name(text), None, "{text}");
    }
}
