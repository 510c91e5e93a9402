//! Tests of the scripts a command's text names.

use super::*;

#[test]
fn each_entry_of_a_search_path_is_a_folder_looked_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("zz")).expect("zz");
    let script = dir.path().join("zz/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    let found = scripts_named("PATH=\"$PWD/zz:$PATH\"; g.sh a", dir.path());
    assert_eq!(found, [script]);
}

#[test]
fn the_folder_it_runs_in_is_read_however_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("zz")).expect("zz");
    let script = dir.path().join("zz/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    for raw in [
        "sh \"$(pwd)\"/zz/g.sh a",
        "sh `pwd`/zz/g.sh a",
        "PATH=${CLAUDE_PROJECT_DIR:-$PWD}/zz:$PATH; g.sh a",
    ] {
        assert_eq!(
            scripts_named(raw, dir.path()),
            std::slice::from_ref(&script),
            "{raw}"
        );
    }
}

#[test]
fn a_folder_inside_a_named_folder_is_looked_in() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("tools/sub")).expect("tools/sub");
    std::fs::create_dir_all(dir.path().join("sub")).expect("sub");
    let script = dir.path().join("tools/sub/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    let found = scripts_named("CDPATH=tools; cd sub >/dev/null; sh g.sh a", dir.path());
    assert_eq!(found, [script]);
}

#[test]
fn scripts_named_in_spellings_nothing_reads_are_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
    let script = dir.path().join("tools/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    for raw in [
        r#"echo "$(case x in x) sh tools/g.sh;; esac)""#,
        "trap -- \"sh tools/g.sh\" EXIT INT",
        "bash <<< \"sh tools/g.sh\"",
        "CDPATH=. cd tools && sh g.sh",
        "pushd tools; sh ./g.sh",
        r#"echo "`echo \`sh \"$CLAUDE_PROJECT_DIR\"/tools/g.sh a\``""#,
        r#"trap -- "sh \"$CLAUDE_PROJECT_DIR\"/tools/g.sh a" EXIT"#,
        "sh \"$SOMEWHERE_UNKNOWN\"/tools/g.sh",
        // Round 38 (R38-1): globs, braces, operators, case changes.
        "echo \"$(sh tools/g.s?)\"",
        "cd t*ls && echo \"$(sh g.sh)\"",
        "bash -c \"sh tools/{g,g}.sh\"",
        "echo \"$(sh ${D:-tools}/g.sh)\"",
        "echo \"$(sh \"${CLAUDE_PROJECT_DIR%/}\"/tools/g.sh)\"",
        "f=TOOLS/G.SH; echo \"$(sh ${f,,})\"",
        "echo \"$(sh ${D:-$PWD/tools}/g.sh)\"",
        // ANSI-C quoting, also inside a string (R38-1).
        "bash -c \"sh $'tools/g\\x2esh' a\"",
        r#"bash -c "sh \$'tools/g\\x2esh' a""#,
        r#"bash -c "bash -c \"sh \\\$'tools/g\\\\056sh'\"""#,
    ] {
        assert_eq!(
            scripts_named(raw, dir.path()),
            std::slice::from_ref(&script),
            "{raw}"
        );
    }
    assert!(scripts_named("cat /proc/loadavg >> log.txt", dir.path()).is_empty());
    // Forty brace lists in one word are read as globs at once; before,
    // each list doubled the work (2^40 spellings: red team R39-3).
    let braces = format!("echo {}; sh tools/g.sh", "{a,b}".repeat(40));
    assert_eq!(
        scripts_named(&braces, dir.path()),
        std::slice::from_ref(&script)
    );
    // An interpreter's script with no ending and no mode (R38-4).
    let plain = dir.path().join("tools/guard");
    std::fs::write(&plain, "exit 0\n").expect("plain");
    let found = scripts_named("echo \"$(sh tools/guard a)\"", dir.path());
    assert_eq!(found, [plain]);
}

/// [`named_scripts`]'s scripts.
fn scripts_named(raw: &str, cwd: &Path) -> Vec<PathBuf> {
    named_scripts(raw, cwd).0
}

#[test]
fn a_glob_matching_more_than_can_be_bound_is_said() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
    for at in 0..=crate::binding::globbing::MAX_MATCHED {
        std::fs::write(dir.path().join(format!("tools/g{at}.sh")), "").expect("script");
    }
    let (_, too_many) = named_scripts("for f in tools/*; do sh \"$f\"; done", dir.path());
    assert!(too_many.is_some_and(|why| why.contains("tools/*")));
    let (found, too_many) = named_scripts("sh tools/g1.sh", dir.path());
    assert_eq!((found.len(), too_many), (1, None));
}

#[test]
fn a_folder_an_expansion_makes_when_it_runs_is_read() {
    // Red team round 51 (z05, z13, z24, z44, z52): `:+`, a cut value, a
    // positional parameter, a translated string.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("zz")).expect("zz");
    let script = dir.path().join("zz/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    for raw in [
        "sh ${PWD:+zz}/g.sh",
        "sh ${HOME+zz}/g.sh",
        "X=xzz; sh ${X#x}/g.sh",
        "X=zzx; sh ${X%x}/g.sh",
        "set -- zz; sh $1/g.sh",
        "set -- x zz; shift; sh \"$@/g.sh\"",
        "f() { sh \"$*/g.sh\"; }; f zz",
        "bash -c \"sh ~+/zz/g.sh\"",
        "bash -c \"sh \\$\\\"zz\\\"/g.sh\"",
    ] {
        assert!(
            scripts_named(raw, dir.path()).contains(&script),
            "{raw}: {:?}",
            scripts_named(raw, dir.path())
        );
    }
}

#[test]
fn a_globs_match_given_to_an_interpreter_by_a_name_is_any_file() {
    // Round 51: a match with no script's ending, a hidden one.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("zz")).expect("zz");
    for name in ["run", ".a"] {
        std::fs::write(dir.path().join("zz").join(name), "exit 0\n").expect("script");
    }
    let found = scripts_named(
        "for f in zz/* zz/.*; do [ -f \"$f\" ] && sh \"$f\"; done",
        dir.path(),
    );
    for name in ["run", ".a"] {
        assert!(
            found.contains(&dir.path().join("zz").join(name)),
            "{name}: {found:?}"
        );
    }
    assert!(scripts_named("wc -l zz/*", dir.path()).is_empty());
}

#[test]
fn an_item_of_a_codes_list_is_a_word() {
    // Red team round 51, e34: `["sh", "tools/g.sh"]` bound nothing.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
    let script = dir.path().join("tools/g.sh");
    std::fs::write(&script, "exit 0\n").expect("script");
    for raw in [
        "python3 -c \"import subprocess; subprocess.run([\\\"sh\\\", \\\"tools/g.sh\\\"])\"",
        "node -e 'require(\"child_process\").spawnSync(\"sh\",[\"tools/g.sh\"])'",
    ] {
        assert!(scripts_named(raw, dir.path()).contains(&script), "{raw}");
    }
}

#[test]
fn a_path_after_a_bang_is_a_word() {
    // Red team round 61, U-47: vim's `silent !tools/x` bound nothing.
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("tools")).expect("tools");
    let script = dir.path().join("tools/x");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").expect("script");
    let executable = std::os::unix::fs::PermissionsExt::from_mode(0o755);
    std::fs::set_permissions(&script, executable).expect("chmod");
    for raw in ["silent !tools/x", ":!tools/x", "!!tools/x"] {
        assert!(scripts_named(raw, dir.path()).contains(&script), "{raw}");
    }
    assert_eq!(super::after_bang("[!a]*"), None);
    assert_eq!(super::after_bang("!"), None);
}
