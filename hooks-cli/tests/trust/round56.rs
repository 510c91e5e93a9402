//! Red team round 56: round 55's rules attacked. The guard's code sending
//! what it starts to the folder of the tool call's path by constructs the
//! reading did not follow (`setattr`, `preexec_fn`, a reassigned
//! `os.getcwd`, `ti["cwd"]` of the tool input, a computed word before
//! git's subcommand, make's clustered `-sC`), steering variables given
//! another way, and rustup's toolchain file spelled as TOML allows or
//! found in a parent folder.

use crate::dialects::{home_with, user_fail_closed_command, write};
use crate::round8_modules::installed;
use crate::round51_red::edited_never_runs;
use crate::round53::emit_naming;

/// A Python guard reading the tool call's path (`fp`, its folder `d`, the
/// tool input `ti`), running `body`, then blocking.
fn file_guard(body: &str) -> String {
    format!(
        "import functools, json, os, subprocess, sys\n\
         data = json.load(sys.stdin)\n\
         ti = data.get(\"tool_input\", {{}})\n\
         fp = ti.get(\"file_path\", \"\")\n\
         d = os.path.dirname(fp) or \".\"\n\
         {body}\n\
         print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
    )
}

#[test]
fn the_files_folder_by_constructs_no_reading_followed_runs_nothing_of_it() {
    if !installed("python3") || !installed("make") {
        return;
    }
    for body in [
        "subprocess.run([\"make\", \"-s\", \"lint\"], cwd=ti.get(\"cwd\") or None, capture_output=True)",
        "class O: pass\no = O()\nsetattr(o, \"cwd\", d)\nsubprocess.run([\"make\", \"-s\", \"lint\"], cwd=o.cwd, capture_output=True)",
        "subprocess.run([\"make\", \"-s\", \"lint\"], capture_output=True, preexec_fn=functools.partial(os.chdir, d))",
        "os.getcwd = lambda: d\nsubprocess.run([\"make\", \"-s\", \"lint\"], cwd=os.getcwd(), capture_output=True)",
        "subprocess.run([\"make\", \"-sC\", d, \"lint\"], capture_output=True)",
        "subprocess.run([\"make\", \"-s\", f\"-C{d}\", \"lint\"], capture_output=True)",
    ] {
        crate::round55::the_files_folder_never_runs(&file_guard(body));
    }
}

#[test]
fn steering_variables_given_another_way_never_run_the_edit() {
    if !installed("python3") || !installed("make") {
        return;
    }
    let guard = |body: &str| {
        format!(
            "import json, os, subprocess, sys\n{body}\n\
             print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
        )
    };
    for body in [
        "subprocess.run([\"make\", \"-s\", \"lint\"], env={**os.environ, \"MAKEFILES\": \"common\" + \".mk\"}, capture_output=True)",
        "k = \"MAKEFILES\"\nsubprocess.run([\"make\", \"-s\", \"lint\"], env={**os.environ, k: \"common.mk\"}, capture_output=True)",
    ] {
        let hook = guard(body);
        edited_never_runs(
            "python3 ~/.claude/hooks/c.py",
            &[
                ("~/.claude/hooks/c.py", &hook),
                ("Makefile", "lint:\n\t@true\n"),
                ("common.mk", "X = 1\n"),
            ],
            &[("common.mk", "$(shell touch PWNED)\n")],
        );
    }
}

#[test]
fn rustups_toolchain_file_as_toml_spells_it_or_in_a_parent_never_runs() {
    if !installed("rustfmt") {
        return;
    }
    let tools = [
        "tc/bin/rustfmt",
        "tc/bin/rustc",
        "src/tc/bin/rustfmt",
        "src/tc/bin/rustc",
    ];
    for (command, at_approval) in [
        // A path key as TOML may spell it.
        (
            "rustfmt --check src/main.rs",
            "[toolchain]\n\"\\u0070ath\" = \"/proc/self/cwd/tc\"\n",
        ),
        // None at approval: one is made in the folder above where it runs.
        ("cd src && rustfmt --check main.rs", ""),
    ] {
        let (home, project) = home_with("[claude]");
        let marks = format!("#!/bin/sh\ntouch '{}'\n", project.join("PWNED").display());
        write(&project, "src/main.rs", "fn main() {}\n");
        for tool in tools {
            write(&project, tool, "#!/bin/sh\nexit 0\n");
            crate::round30_open::executable(&project.join(tool));
        }
        if !at_approval.is_empty() {
            write(&project, "rust-toolchain.toml", at_approval);
        }
        user_fail_closed_command(
            &home,
            &format!(
                "{command} >/dev/null 2>&1; echo '{{\"decision\":\"block\",\"reason\":\"guarded\"}}'"
            ),
        );
        crate::round55::emit_as_users_shell(&home, &project, true);
        for tool in tools {
            write(&project, tool, &marks);
        }
        if at_approval.is_empty() {
            write(
                &project,
                "rust-toolchain.toml",
                "[toolchain]\npath = \"/proc/self/cwd/tc\"\n",
            );
        }
        let emitted = crate::round55::emit_as_users_shell(&home, &project, false);
        assert!(
            !project.join("PWNED").exists(),
            "{command}: the project's rustfmt ran"
        );
        assert_eq!(
            emitted["outcome"]["action"], "block",
            "{command}: {emitted:#}"
        );
    }
}

/// H56-6 (archive only): `["git", "-C", "sub", …]` written out in code,
/// with `sub/.git` nested, binds that repository's settings as the shell's
/// `git -C sub` does.
#[test]
fn git_given_a_nested_repository_by_code_binds_its_settings() {
    if !installed("python3") || !installed("git") {
        return;
    }
    let (home, project) = home_with("[claude]");
    write(&project, "sub/x.py", "x = 1\n");
    crate::round28::git(&project, &["init", "-q", "."]);
    crate::round28::git(&project.join("sub"), &["init", "-q", "."]);
    let hook = file_guard(
        "subprocess.run([\"git\", \"-C\", \"sub\", \"status\", \"--short\"], capture_output=True)",
    );
    write(&home.user_home, ".claude/hooks/g.py", &hook);
    user_fail_closed_command(&home, "python3 ~/.claude/hooks/g.py");
    let file = project.join("sub/x.py");
    let accepted = emit_naming(&home, &project, &file, true);
    assert_eq!(accepted["outcome"]["message"], "guarded", "{accepted:#}");
    let fsmonitor = format!("touch {}; false", project.join("PWNED").display());
    crate::round28::git(
        &project.join("sub"),
        &["config", "core.fsmonitor", &fsmonitor],
    );
    let emitted = emit_naming(&home, &project, &file, false);
    assert!(
        !project.join("PWNED").exists(),
        "the nested repository's fsmonitor ran"
    );
    assert_eq!(emitted["outcome"]["action"], "block", "{emitted:#}");
}

/// H56-5: Perl given a module folder by `-Mlib=` (the shell's own text,
/// and written out in code) or by `PERL5OPT` in code binds what it loads.
#[test]
fn perls_module_folders_given_by_lib_or_perl5opt_bind_what_it_loads() {
    if !installed("perl") || !installed("python3") {
        return;
    }
    let module = [("tools/X.pm", "package X; 1;\n")];
    let edited = [(
        "tools/X.pm",
        "package X; open(my $f, \">\", \"PWNED\"); 1;\n",
    )];
    edited_never_runs(
        "perl -Mlib=tools -MX -e 1 >/dev/null 2>&1; sh ~/bin/g.sh </dev/null",
        &module,
        &edited,
    );
    for body in [
        "subprocess.run([\"perl\", \"-Mlib=tools\", \"-MX\", \"-e\", \"1\"])",
        "subprocess.run([\"perl\", \"-e\", \"1\"], env={**os.environ, \"PERL5OPT\": \"-Itools -MX\"})",
    ] {
        let hook = format!(
            "import json, os, subprocess, sys\n{body}\n\
             print(json.dumps({{\"decision\": \"block\", \"reason\": \"guarded\"}}))\n"
        );
        edited_never_runs(
            "python3 ~/.claude/hooks/p.py",
            &[("~/.claude/hooks/p.py", &hook), module[0]],
            &edited,
        );
    }
}
