//! Tests of inline code's reading: commands built when it runs.

use super::spawns_computed;

#[test]
fn a_command_built_when_it_runs_is_found() {
    for (program, code) in [
        ("python3", "import os; os.system('sh ' + 'tools/g.' + 'sh')"),
        ("python3", "import subprocess as s; s.run(['sh', n])"),
        (
            "python3",
            "import subprocess as s; s.run(['bash', '-c', c])",
        ),
        ("python3", "import subprocess as s; s.run([p, 'x'])"),
        (
            "python3",
            "import os; os.execvp('sh', ['sh', f'tools/{x}.sh'])",
        ),
        ("perl", "exec 'sh', sprintf('tools/g.%s', 'sh'), 'a'"),
        ("perl", "system(\"sh tools/g.$x\")"),
        ("perl", "my $x = `sh tools/g.$e`"),
        ("ruby", "system('sh', ARGV[0])"),
        ("node", "require('child_process').execSync('sh ' + f)"),
        (
            "awk",
            "BEGIN{system(\"sh \" sprintf(\"tools/g.%s\",\"sh\") \" a\")}",
        ),
        ("awk", "{ print | (\"sh \" $1) }"),
        ("awk", "BEGIN { c = \"sh tools/g.sh\"; c | getline x }"),
    ] {
        assert!(spawns_computed(program, code).is_some(), "{program} {code}");
    }
}

#[test]
fn written_commands_and_code_that_starts_none_are_read_as_before() {
    for (program, code) in [
        (
            "python3",
            "import json,sys; print(json.load(sys.stdin)['tool_name'])",
        ),
        (
            "python3",
            "import subprocess; subprocess.run(['git', 'diff'], check=True)",
        ),
        ("python3", "import os; os.system('make -s lint')"),
        ("perl", "system('make', '-s'); print qq{ok}"),
        ("perl", "while (<>) { print if /x/ }"),
        (
            "node",
            "const d = JSON.parse(require('fs').readFileSync(0)); console.log(d.x)",
        ),
        ("awk", "{ print $1 } END { if (a || b) print \"x\" }"),
        ("awk", "BEGIN { system(\"make -s\"); \"date\" | getline d }"),
        ("awk", "/foo|bar/ { print \"a|b\" }"),
        ("python3", "import asyncio; asyncio.run(main())"),
        ("python3", "import json; json.loads(x); close(f)"),
        (
            "python3",
            "import json, subprocess as s, sys\ndata = json.load(sys.stdin)\ns.run(['npx', 'prettier', '--write', f], cwd=data['cwd'])",
        ),
        (
            "python3",
            "import os; os.execvp('sh', ['sh', 'tools/g.sh', x])",
        ),
        ("perl", "open(my $f, '<', $ARGV[0]) or die; print <$f>"),
        ("node", "console.log(/x/.exec(s))"),
        // Written files that run as data, or logs (round 49).
        (
            "python3",
            "import os, subprocess\nd = os.path.expanduser('~/.claude')\nopen(os.path.join(d, 'hook.log'), 'a').write(x)\nsubprocess.run(['sh', 'tools/g.sh'])\nsubprocess.run(['git', 'diff', f])\n",
        ),
        (
            "node",
            "const fs = require('fs');\nconst cp = require('child_process');\nfs.appendFileSync(path.join(d, 'hook.log'), x);\ncp.execSync('sh tools/g.sh', { stdio: 'inherit' });\n",
        ),
    ] {
        assert!(spawns_computed(program, code).is_none(), "{program} {code}");
    }
}

#[test]
fn a_file_written_then_run_in_any_language_is_found() {
    for (program, code) in [
        (
            "python3",
            "import os, subprocess\nopen(os.path.join(d, 'y.sh'), 'w').write(t)\nsubprocess.run(['sh', '/tmp/y.sh'])\n",
        ),
        (
            "python3",
            "import subprocess\n(Path(d) / 'y.sh').write_text(t)\nsubprocess.run('sh /tmp/y.sh', shell=True)\n",
        ),
        (
            "python3",
            "import subprocess, glob\nsubprocess.run(['cp', glob.glob('tools/g*')[0], '/tmp/y.sh'])\nsubprocess.run(['sh', '/tmp/y.sh'])\n",
        ),
        (
            "python3",
            "import shutil, subprocess\nshutil.copyfile(src, os.path.join(d, name))\nsubprocess.run(['sh', '/tmp/y.sh'])\n",
        ),
        (
            "node",
            "const fs = require('fs');\nconst cp = require('child_process');\nfs.copyFileSync(src, '/tmp/y.sh');\ncp.execFileSync('sh', ['/tmp/y.sh']);\n",
        ),
        (
            "node",
            "const cp = require('child_process');\ncp.execFileSync('cp', [src, '/tmp/y.sh']);\ncp.execSync('sh /tmp/y.sh');\n",
        ),
        (
            "perl",
            "open(my $f, '>', \"$d/y.sh\"); print $f $t; close $f;\nsystem('sh', '/tmp/y.sh');\n",
        ),
        (
            "perl",
            "use File::Copy;\ncopy($src, '/tmp/y.sh');\nsystem('sh', '/tmp/y.sh');\n",
        ),
    ] {
        assert!(spawns_computed(program, code).is_some(), "{program} {code}");
    }
}

/// Round 55: git started by code in a repository the code computes (the
/// folder of a path the tool call names: a nested repository's
/// `core.fsmonitor` ran) is refused, as the shell's `git -C "$d"` is; the
/// project folder, written out or as the hook input's `cwd`, is not.
#[test]
fn git_started_in_a_computed_repository_is_refused() {
    let head = "import json, os, subprocess, sys\ndata = json.load(sys.stdin)\n\
                fp = data['tool_input']['file_path']\n";
    for body in [
        "subprocess.run(['git', '-C', os.path.dirname(fp), 'status'])",
        "subprocess.run(['git', '--work-tree', os.path.dirname(fp), 'status'])",
        "subprocess.run(['git', '--git-dir', d, 'status'])",
        "subprocess.run(['git', '-c', 'core.pager=' + fp, 'log'])",
        // Another repository's `.git` beside the project's (U56-1's sibling).
        "repo = data['cwd']\nsubprocess.run(['git', '--git-dir', os.path.join(repo, 'sub', '.git'), '--work-tree', repo, 'status'])",
        "repo = os.path.dirname(fp)\nsubprocess.run(['git', '--git-dir', os.path.join(repo, '.git'), '--work-tree', repo, 'status'])",
        "subprocess.run(['timeout', '5', 'git', '-C', os.path.dirname(fp), 'diff'])",
        // The project folder written beside it does not vouch for another.
        "subprocess.run(['git', '-C', data['cwd'], 'status'])\nsubprocess.run(['git', '-C'] + [os.path.dirname(fp)] + ['diff'])",
    ] {
        let why = spawns_computed("python3", &format!("{head}{body}\n"));
        assert!(
            why.as_deref()
                .is_some_and(|why| why.contains("runs git in a repository named")),
            "{body}: {why:?}"
        );
    }
    // Round 56, a20: backquotes in a shell string run where it moved.
    let body = "subprocess.run('ls `make -s lint`', shell=True, cwd=os.path.dirname(fp))";
    assert!(spawns_computed("python3", &format!("{head}{body}\n")).is_some());
    let node = "const { spawnSync } = require('child_process');\n\
                const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));\n\
                spawnSync('git', ['-C', path.dirname(input.tool_input.file_path), 'status']);\n";
    assert!(spawns_computed("node", node).is_some(), "{node}");
    for body in [
        "subprocess.run(['git', '-C', data['cwd'], 'status'])",
        "subprocess.run(['git', '-C', os.environ['CLAUDE_PROJECT_DIR'], 'diff', '--', fp])",
        "subprocess.run(['git', '-C', 'web', 'status'])",
        // U56-1: the project's own `.git`, joined to its folder.
        "repo = data['cwd']\nsubprocess.run(['git', '--git-dir', os.path.join(repo, '.git'), '--work-tree', repo, 'status'])",
        "repo = data['cwd']\nsubprocess.run(['git', '--git-dir', repo + '/.git', '--work-tree', repo, 'diff', '--', fp])",
        "repo = data['cwd']\nsubprocess.run(['git', '--git-dir', str(Path(repo) / '.git'), '--work-tree', repo, 'status'])",
        "subprocess.run(['git', 'diff', '--', fp])",
    ] {
        assert_eq!(
            spawns_computed("python3", &format!("{head}{body}\n")),
            None,
            "{body}"
        );
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Whatever a hook's Python or Node code holds, reading what it starts
    /// and where it moves never panics (round 55 added readings of `cwd`
    /// keys, folder options, f-strings and steering variables).
    #[test]
    fn reading_any_code_never_panics(
        pieces in proptest::collection::vec(0usize..CODE_PIECES.len(), 0..24),
        node in proptest::bool::ANY,
    ) {
        let code: String = pieces.iter().map(|&at| CODE_PIECES[at]).collect();
        let program = if node { "node" } else { "python3" };
        let _ = spawns_computed(program, &code);
        let _ = super::super::started::started_commands(program, &code);
    }
}

/// Pieces of Python and Node code the property above puts together.
const CODE_PIECES: [&str; 36] = [
    "subprocess.run(",
    "execSync(",
    ")",
    "(",
    "[",
    "]",
    "\"git\"",
    "\"-C\"",
    ", ",
    "cwd=",
    "{\"cwd\": ",
    "}",
    "os.chdir(",
    "process[\"chdir\"](",
    "f\"cd {shlex.quote(d)} && make\"",
    "data[\"cwd\"]",
    "os.path.dirname(fp)",
    " or None",
    "\"",
    "'",
    "\n",
    "=",
    "d",
    "fp",
    "os.environ[\"MAKEFILES\"] = \"x\"",
    "executable=",
    "\"make\"",
    "shell=True",
    "`${",
    "}`",
    "\u{e9}",
    "\\",
    "#",
    "os.putenv(\"BASH_ENV\", ",
    "json.load(sys.stdin)",
    "+",
];

/// Round 56: a variable steering what a started program reads, given in a
/// way no reading follows, is refused; one given written out, or only
/// read, is not.
#[test]
fn steering_variables_given_another_way_are_refused() {
    let head = "import os, subprocess, pathlib\n";
    for body in [
        "k = \"BASH_ENV\"\nsubprocess.run([\"bash\", \"-c\", \"true\"], env={**os.environ, k: \"tools/env.sh\"})",
        "subprocess.run([\"make\"], env=dict(os.environ, MAKEFILES=str(pathlib.Path(\"common.mk\"))))",
    ] {
        let why = spawns_computed("python3", &format!("{head}{body}\n"));
        assert!(why.is_some(), "{body}");
    }
    assert!(
        spawns_computed("perl", "$ENV{MAKEFILES} = $x;\nsystem(\"make\", \"-s\");\n").is_some()
    );
    for body in [
        "subprocess.run([\"make\"], env={**os.environ, \"MAKEFILES\": \"common.mk\"})",
        // Pieces written out, joined (read as `MAKEFILES=common.mk` since round 57).
        "subprocess.run([\"make\"], env={**os.environ, \"MAKEFILES\": \"common\" + \".mk\"})",
        "p = os.environ.get(\"NODE_PATH\", \"\")\nsubprocess.run([\"make\"])",
        "subprocess.run([\"perl\", \"-e\", \"1\"], env={**os.environ, \"PERL5OPT\": \"-w\"})",
    ] {
        assert_eq!(
            spawns_computed("python3", &format!("{head}{body}\n")),
            None,
            "{body}"
        );
    }
    assert_eq!(
        spawns_computed("perl", "my $h = $ENV{HOME};\nsystem(\"make\", \"-s\");\n"),
        None
    );
}
