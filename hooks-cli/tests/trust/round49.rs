//! Round 49: a file the hook writes when it runs and then runs, where
//! round 47's reading (R47-11: a redirection's target, `tee`, Python's
//! `open(p, "w")` by a literal path) did not see the write: a command that
//! copies (`cp "$(…)" /tmp/y.sh`, `cp tools/g* …`), a target built when it
//! runs (`os.path.join(d, "y.sh")`), a run before the write in a loop, and
//! the same in Node and Perl. The copied file's code exists only when the
//! hook runs, so no approval binds it: such a hook cannot be approved.

use crate::dialects::write;
use crate::round8_modules::installed;
use crate::round40::edit_never_runs;

/// The written file, outside the project (`W` in the cases).
fn written_path(project: &std::path::Path) -> String {
    let folder = project.parent().expect("a temporary home");
    folder.join("r49y.sh").display().to_string()
}

#[test]
fn a_shell_hook_copying_a_file_and_running_the_copy_is_never_approved() {
    for command in [
        "cp \"$(printf tools/g.%s sh)\" ../r49y.sh; sh ../r49y.sh; rm -f ../r49y.sh",
        "cp tools/g* ../r49y.sh && sh ../r49y.sh; rm -f ../r49y.sh",
        "dd if=\"$(ls tools/g*)\" of=../r49y.sh 2>/dev/null; . ../r49y.sh; rm -f ../r49y.sh",
        "D=$(cd .. && pwd); cat tools/g* > \"$D/r49y.sh\"; sh ../r49y.sh; rm -f ../r49y.sh",
        "for i in 1 2; do [ -f ../r49y.sh ] && sh ../r49y.sh; cp tools/g* ../r49y.sh; done; rm -f ../r49y.sh",
    ] {
        edit_never_runs(command, &|_| {});
    }
}

#[test]
fn a_script_copying_a_file_by_a_path_built_when_it_runs_is_never_approved() {
    // "tools/g.sh" (`N`), spelled so no word names it.
    let python = [
        "shutil.copyfile(N, os.path.join(os.path.dirname(W), 'r49y.sh'))\nsubprocess.run(['sh', W])",
        "from pathlib import Path\n(Path(W).parent / 'r49y.sh').write_text(open(N).read())\nsubprocess.run(['sh', W])",
        "subprocess.run(['cp', N, W])\nsubprocess.run(['sh', W])",
    ];
    let node = [
        "const fs = require('fs');\nconst cp = require('child_process');\nfs.copyFileSync(String.fromCharCode(116, 111, 111, 108, 115, 47, 103, 46, 115, 104), W);\ncp.execFileSync('sh', [W], { stdio: 'inherit' });",
        "const cp = require('child_process');\ncp.execFileSync('cp', [String.fromCharCode(116, 111, 111, 108, 115, 47, 103, 46, 115, 104), W]);\ncp.execFileSync('sh', [W], { stdio: 'inherit' });",
    ];
    let perl = [
        "use File::Copy;\ncopy(pack('C*', 116, 111, 111, 108, 115, 47, 103, 46, 115, 104), W);\nsystem('sh', W);",
        "my $d = join('', '.', '.');\nopen(my $i, '<', pack('C*', 116, 111, 111, 108, 115, 47, 103, 46, 115, 104));\nopen(my $o, '>', \"$d/../r49y.sh\");\nprint {$o} <$i>;\nclose $o;\nsystem('sh', W);",
    ];
    let mut cases: Vec<(&str, &str, String)> = python
        .iter()
        .map(|body| {
            let code = format!(
                "import os, shutil, subprocess, sys\nsys.stdin.read()\nN = bytes([116, 111, 111, 108, 115, 47, 103, 46, 115, 104]).decode()\n{body}\nos.remove(W)\n"
            );
            ("python3 x.py", "x.py", code)
        })
        .collect();
    if installed("node") {
        cases.extend(node.iter().map(|body| {
            let code =
                format!("require('fs').readFileSync(0);\n{body}\nrequire('fs').unlinkSync(W);\n");
            ("node x.js", "x.js", code)
        }));
    }
    if installed("perl") {
        cases.extend(perl.iter().map(|body| {
            let code = format!("<STDIN>;\n{body}\nunlink(W);\n");
            ("perl x.pl", "x.pl", code)
        }));
    }
    for (command, file, code) in cases {
        edit_never_runs(command, &|project| {
            let written = written_path(project);
            let quote = if file.ends_with(".js") { '\'' } else { '"' };
            let code = code.replace('W', &format!("{quote}{written}{quote}"));
            write(project, file, &code);
        });
    }
}
