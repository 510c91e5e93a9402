//! Round 47's open rows: a Node or Perl script file (Ruby and PHP are
//! read alike) that starts a
//! command built when it runs (R47-3: only their inline `-e` code was
//! read), named by its ending, its `#!` line or the interpreter the
//! command gives it to; and the Node and Perl hooks that start written
//! commands, which run as before.

use crate::dialects::{executable, home_with, write};
use crate::round8_modules::installed;
use crate::round39::{accepted_then_edited, runs_guarded};
use crate::round40::edit_never_runs;

/// A Node script computing the guard's name, as `node` runs it.
const NODE_COMPUTES: &str = "const cp = require('child_process');\nrequire('fs').readFileSync(0);\ncp.execSync('sh tools/g.' + 'sh a', { stdio: 'ignore' });\n";

#[test]
fn a_script_file_starting_a_command_built_when_it_runs_is_never_approved() {
    // Each case: the command, the file it runs and what the file holds.
    let cases: [(&str, &str, &str); 12] = [
        ("node x.js", "x.js", NODE_COMPUTES),
        (
            "node x.mjs",
            "x.mjs",
            "import { spawnSync } from 'node:child_process';\nspawnSync('sh', ['tools/g.' + 'sh', 'a']);\n",
        ),
        (
            "node x.js",
            "x.js",
            "const { execSync } = require('child_process');\nconst n = 'g';\nexecSync(`sh tools/${n}.sh a`);\n",
        ),
        // No ending: the interpreter the command names decides.
        ("node tools/h", "tools/h", NODE_COMPUTES),
        ("./x", "x", &format!("#!/usr/bin/env node\n{NODE_COMPUTES}")),
        // A function taken as a value, renamed, or text run as code.
        (
            "node x.js",
            "x.js",
            "const cp = require('child_process');\nconst run = cp.execSync;\nrun('sh tools/g.' + 'sh a');\n",
        ),
        (
            "node x.js",
            "x.js",
            "const { execSync: run } = require('child_process');\nrun('sh tools/g.' + 'sh a');\n",
        ),
        (
            "perl x.pl",
            "x.pl",
            "my $c = 'sys' . 'tem';\neval \"$c('sh', 'tools/g.' . 'sh', 'a')\";\n",
        ),
        // The module under a name of its own, a function picked by a
        // computed name (review of R47-3).
        (
            "node x.js",
            "x.js",
            "const x = require('child_process');\nconst m = String.fromCharCode(101, 120, 101, 99, 83, 121, 110, 99);\nx[m]('sh tools/g.' + 'sh a', { stdio: 'ignore' });\n",
        ),
        (
            "perl x.pl",
            "x.pl",
            "<STDIN>;\nsystem(\"sh\", \"tools/g.\" . \"sh\", \"a\");\n",
        ),
        (
            "perl tools/h",
            "tools/h",
            "my $n = 'g';\nsystem(\"sh tools/$n.sh a\");\n",
        ),
        (
            "./x",
            "x",
            "#!/usr/bin/perl\nmy $n = 'g';\nmy $out = `sh tools/$n.sh a`;\n",
        ),
    ];
    for (command, file, text) in cases {
        edit_never_runs(command, &|project| {
            let written = write(project, file, text);
            if file == "x" {
                executable(&written);
            }
        });
    }
}

#[test]
fn a_users_node_or_perl_script_computing_a_project_name_is_never_approved() {
    for (command, file, text) in [
        (
            "node ~/.claude/hooks/x.js",
            ".claude/hooks/x.js",
            NODE_COMPUTES,
        ),
        (
            "perl ~/.claude/hooks/x.pl",
            ".claude/hooks/x.pl",
            "system('sh', 'tools/g.' . 'sh', 'a');\n",
        ),
        // A home script a user's shell script runs, read in its language.
        ("bash ~/.claude/hooks/x.sh", "bin/y.js", NODE_COMPUTES),
    ] {
        let (home, project) = home_with("[claude]");
        write(&home.user_home, file, text);
        write(
            &home.user_home,
            ".claude/hooks/x.sh",
            "#!/bin/bash\nnode ~/bin/y.js\n",
        );
        accepted_then_edited(&home, &project, command);
    }
}

#[test]
fn node_and_perl_hooks_starting_written_commands_run() {
    // A program written out, its data computed: the guard (`tools/g.sh`)
    // must answer.
    let node = [
        "const { execFileSync } = require('child_process');\nconst f = process.argv[2] || 'x';\nexecFileSync('true', ['--', f]);\nexecFileSync('sh', ['tools/g.sh'], { stdio: 'inherit' });\n",
        "const cp = require('node:child_process');\ncp.spawnSync(`true`, [String(Date.now())]);\ncp.execSync('sh tools/g.sh', { stdio: 'inherit' });\n",
        "const cp = require('child_process');\nconst re = /(\\d+)/;\nconst m = re.exec('a1') || /x/.exec('x');\ncp.execFileSync('sh', ['tools/g.sh', m[1]], { stdio: 'inherit' });\n",
    ];
    let perl = [
        "my $f = $ARGV[0] // 'x';\nsystem('true', $f);\nexec('sh', 'tools/g.sh');\n",
        "system(\"true\");\nexec 'sh', 'tools/g.sh';\n",
        "open(my $f, '-|', 'true', $0) or die;\nmy @out = <$f>;\neval { 1 };\nexec('sh', 'tools/g.sh');\n",
    ];
    let mut cases: Vec<(&str, &str, &str)> = Vec::new();
    if installed("node") {
        cases.extend(node.iter().map(|text| ("node x.js", "x.js", *text)));
    }
    if installed("perl") {
        cases.extend(perl.iter().map(|text| ("perl x.pl", "x.pl", *text)));
    }
    for (command, file, text) in cases {
        let (home, project) = home_with("[claude]");
        crate::round39::scripts(&home, &project, crate::round39::GUARDS);
        write(&project, file, text);
        runs_guarded(&home, &project, command);
    }
}

/// R47-11's Python variant: a Python hook that writes a script when it
/// runs, runs it and deletes it (its code exists only then: no reading
/// binds it).
#[test]
fn a_script_python_writes_and_then_runs_is_never_approved() {
    // "tools/g.sh", spelled so no word names it.
    let name = "bytes([116, 111, 111, 108, 115, 47, 103, 46, 115, 104]).decode()";
    for body in [
        "open('Y', 'w').write('sh ' + NAME + ' a\\n')\nsubprocess.run(['sh', 'Y'])\nos.remove('Y')",
        "p = 'Y'\nwith open(p, 'w') as f:\n    f.write('sh ' + NAME + ' a\\n')\nos.system('sh Y')\nos.remove(p)",
        "from pathlib import Path\nPath('Y').write_text('sh ' + NAME + ' a\\n')\nsubprocess.run('. Y', shell=True)\nos.remove('Y')",
        // Written under an escaped spelling, run by the plain one.
        "open('ESCAPED', 'w').write('sh ' + NAME + ' a\\n')\nsubprocess.run(['sh', 'Y'])\nos.remove('Y')",
    ] {
        edit_never_runs("python3 x.py", &|project| {
            // Outside the project, a name no other test writes.
            let folder = project.parent().expect("a temporary home");
            let written = folder.join("r48y.sh").display().to_string();
            let body = body
                .replace('Y', &written)
                .replace("ESCAPED", &written.replace('.', "\\x2e"))
                .replace("NAME", name);
            write(
                project,
                "x.py",
                &format!("import os, subprocess, sys\nsys.stdin.read()\n{body}\n"),
            );
        });
    }
}

/// Found while fixing R47-3: a shell text written out in another
/// language's code (`os.system('sh "$(printf …)"')`) was not read for the
/// names it computes, in a script file or inline, however spelled.
#[test]
fn a_shell_text_another_language_hands_a_shell_is_read() {
    let computes = r#"sh \"$(printf tools/g.%s sh)\" a"#;
    for (command, file, text) in [
        ("python3 x.py", "x.py", format!("import os, sys\nsys.stdin.read()\nos.system(\"{computes}\")\n")),
        ("python3 x.py", "x.py", "import subprocess, sys\nsys.stdin.read()\nsubprocess.run(['bash', '-c', 'sh \"\\x24(printf tools/g.%s sh)\" a'])\n".to_owned()),
        ("node x.js", "x.js", format!("require('fs').readFileSync(0);\nrequire('child_process').execSync(\"{computes}\", {{ stdio: 'ignore' }});\n")),
        ("perl x.pl", "x.pl", "<STDIN>;\nsystem('sh', '-c', 'sh \"$(printf tools/g.%s sh)\" a');\n".to_owned()),
        (
            "python3 x.py",
            "x.py",
            "import subprocess, sys\nsys.stdin.read()\nsubprocess.run(['sh'], input='sh \"$(printf tools/g.%s sh)\" a', text=True)\n".to_owned(),
        ),
        (
            "node x.js",
            "x.js",
            "require('fs').readFileSync(0);\nrequire('child_process').spawnSync('sh', [], { input: 'sh \"$(printf tools/g.%s sh)\" a', stdio: ['pipe', 'ignore', 'ignore'] });\n".to_owned(),
        ),
        ("python3 -c \"import os; os.system('sh \\\"\\$(printf tools/g.%s sh)\\\" a')\"", "unused", String::new()),
    ] {
        edit_never_runs(command, &|project| {
            write(project, file, &text);
        });
    }
}

/// Review of R47-3: a NUL byte in a Node or Perl script (a comment, after
/// `__END__`) is no appended zip, as in a Python file: the script is read
/// all the same.
#[test]
fn a_nul_byte_does_not_hide_what_a_node_or_perl_script_starts() {
    for (command, file, text) in [
        ("node x.js", "x.js", format!("{NODE_COMPUTES}// \0\n")),
        (
            "node x.js",
            "x.js",
            "require('fs').readFileSync(0);\nrequire('child_process').spawnSync('sh', ['tools/' + 'g.sh', 'a'], { stdio: 'ignore' });\n// \0\n".to_owned(),
        ),
        (
            "perl x.pl",
            "x.pl",
            "<STDIN>;\nsystem(\"sh\", \"tools/g.\" . \"sh\", \"a\");\n__END__\n\0\n".to_owned(),
        ),
    ] {
        edit_never_runs(command, &|project| {
            write(project, file, &text);
        });
    }
}
