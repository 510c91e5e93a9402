//! Unit tests of [`super`]: what code writes, read as written or by its end.

use super::*;

fn of(code: &str, program: &str) -> Written {
    written(code, program).expect("read")
}

#[test]
fn paths_written_out_are_read_as_written() {
    for (code, program, path) in [
        ("open('/tmp/y.sh', 'w').write(t)", "python3", "/tmp/y.sh"),
        (
            "with open(\"y.sh\", mode=\"a\") as f:\n    f.write(x)\n",
            "python3",
            "y.sh",
        ),
        (
            "p = '/tmp/y.py'\nPath(p).write_text(body)\n",
            "python3",
            "/tmp/y.py",
        ),
        ("shutil.copy(src, '/tmp/y')\n", "python3", "/tmp/y"),
        (
            "open('/tmp/y\\x2esh', 'w').write(t)",
            "python3",
            "/tmp/y.sh",
        ),
        ("fs.writeFileSync('/tmp/y.sh', body);", "node", "/tmp/y.sh"),
        ("fs.copyFileSync(src, '/tmp/y.sh');", "node", "/tmp/y.sh"),
        (
            "fs.cpSync(src, '/tmp/d', {recursive: true});",
            "node",
            "/tmp/d",
        ),
        ("open(my $f, '>', '/tmp/y.sh');", "perl", "/tmp/y.sh"),
        ("open(F, \">/tmp/y.sh\");", "perl", "/tmp/y.sh"),
        ("copy($src, '/tmp/y.sh');", "perl", "/tmp/y.sh"),
        ("File.write('/tmp/y.sh', body)", "ruby", "/tmp/y.sh"),
        ("file_put_contents('/tmp/y.sh', $body);", "php", "/tmp/y.sh"),
    ] {
        let found = of(code, program);
        assert_eq!(found.paths, [path], "{code}");
    }
}

#[test]
fn paths_built_when_it_runs_are_read_by_their_end() {
    for (code, program, end) in [
        (
            "open(os.path.join(d, 'y.sh'), 'w').write(t)",
            "python3",
            "y.sh",
        ),
        ("(Path(d) / 'y.sh').write_text(t)", "python3", "y.sh"),
        (
            "p = Path(d) / 'bin' / 'y'\np.write_text(t)\n",
            "python3",
            "y",
        ),
        ("open(f'{d}/y.sh', 'w')", "python3", "/y.sh"),
        ("shutil.copyfile(src, os.path.join(d, name))", "python3", ""),
        ("tarfile.open(a).extractall(d)", "python3", ""),
        (
            "fs.writeFileSync(path.join(d, 'y.sh'), body);",
            "node",
            "y.sh",
        ),
        ("fs.writeFileSync(`${d}/y.sh`, body);", "node", "/y.sh"),
        ("open(my $f, '>', \"$d/y.sh\");", "perl", "/y.sh"),
    ] {
        let found = of(code, program);
        assert_eq!(found.ends, [end], "{code}");
    }
}

#[test]
fn reading_is_no_writing() {
    for (code, program) in [
        ("open('tools/g.sh').read()", "python3"),
        ("open(p, 'r')", "python3"),
        ("open(p, 'rb')", "python3"),
        ("Path(p).read_text()", "python3"),
        ("s.replace('a', 'b')", "python3"),
        ("fs.readFileSync('/tmp/y.sh')", "node"),
        ("open(my $f, '<', $p);", "perl"),
        ("open(F, 'tools/g.sh');", "perl"),
        // A copy of files named as written: bound where read.
        ("shutil.copytree('.', '/tmp/copy')", "python3"),
        ("shutil.copy('tools/x.sh', '/tmp/y.sh')", "python3"),
        ("X = 'lib'\nshutil.copytree(X, '/tmp/copy')\n", "python3"),
    ] {
        assert!(of(code, program).is_empty(), "{code}");
    }
}

#[test]
fn a_copy_of_a_name_built_when_it_runs_or_of_a_written_file_is_written() {
    for (code, program, path) in [
        // Built from pieces, though it starts and ends with a quote (round 50).
        (
            "src = 'tools/' + chr(103) + '.sh'\nshutil.copyfile(src, '/tmp/y.sh')\n",
            "python3",
            "/tmp/y.sh",
        ),
        (
            "shutil.copyfile('tools/' + sorted(os.listdir('tools'))[0] + '', '/tmp/y.sh')",
            "python3",
            "/tmp/y.sh",
        ),
        // A file the code wrote, moved or copied on.
        (
            "open('/tmp/x.tmp', 'w').write(t)\nos.rename('/tmp/x.tmp', '/tmp/y.sh')\n",
            "python3",
            "/tmp/y.sh",
        ),
        (
            "open('/tmp/x.tmp', 'w').write(t)\nshutil.copy('/tmp/x.tmp', '/tmp/y.sh')\n",
            "python3",
            "/tmp/y.sh",
        ),
        ("Path('/tmp/y.sh').symlink_to(src)", "python3", "/tmp/y.sh"),
        (
            "fs.renameSync('/tmp/x.tmp', '/tmp/y.sh');",
            "node",
            "/tmp/y.sh",
        ),
    ] {
        assert!(of(code, program).paths.contains(&path.to_owned()), "{code}");
    }
}

#[test]
fn a_log_named_through_a_variable_is_read_by_its_value() {
    for (code, program) in [
        (
            "my $log = \"/tmp/hook.log\";\nopen(my $f, \">>\", $log);\n",
            "perl",
        ),
        (
            "const log = '/tmp/hook.log';\nfs.appendFileSync(log, 'x');\n",
            "node",
        ),
    ] {
        let found = of(code, program);
        assert_eq!(found.paths, ["/tmp/hook.log"], "{code}");
        assert!(found.ends.is_empty(), "{code}");
    }
}

#[test]
fn a_javascript_functions_parameter_is_read_by_its_calls() {
    // Round 50, U50-3: a logging helper's path parameter.
    let helper = "function log(file, msg) { fs.appendFileSync(file, msg + '\\n'); }\n";
    let found = of(
        &format!("{helper}log(path.join(os.homedir(), '.claude', 'hook.log'), 'pre');\n"),
        "node",
    );
    assert_eq!(found.ends, ["hook.log"]);
    let found = of(
        &format!("{helper}log('/tmp/a.log', 'x'); log('/tmp/b.log', 'y');\n"),
        "node",
    );
    assert_eq!(found.paths, ["/tmp/a.log", "/tmp/b.log"]);
    // A copy through a helper of a name built when it runs: its target.
    let copy = "function cp(a, b) { fs.copyFileSync(a, b); }\ncp('tools/' + String.fromCharCode(103) + '.sh', '/tmp/x.sh');\n";
    assert!(
        of(copy, "node")
            .paths
            .iter()
            .any(|path| path == "/tmp/x.sh")
    );
    // Python's lambda too (round 51, x-xpfn4).
    let lambda = "save = lambda d: open(d, 'w').write(open('tools/' + chr(103) + '.sh').read())\nsave('/tmp/x.sh')\n";
    assert!(
        of(lambda, "python3")
            .paths
            .iter()
            .any(|path| path == "/tmp/x.sh")
    );
    // Handed over as a value, or given a spread: any file.
    for calls in ["[1].forEach(log);\n", "log(...args);\n"] {
        let found = of(&format!("{helper}{calls}"), "node");
        assert_eq!(found.ends, [""], "{calls}");
    }
}

#[test]
fn an_escape_no_reading_decodes_refuses() {
    assert!(written("open('/tmp/y\\N{FULL STOP}sh', 'w')", "python3").is_err());
}
