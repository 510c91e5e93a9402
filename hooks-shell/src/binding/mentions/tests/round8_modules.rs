//! Red team round 8: modules and includes found through a manifest, a
//! module name's own spelling, an option or a site folder (R8-3 node
//! `imports` / `exports`, R8-4 Perl `::` and `#!` switches, R8-5 Tcl
//! `auto_path`, R8-6 C `-I`, R8-7 Python `src` layout, R8-8 git's
//! configuration).

use super::{named_by, project, write};
use std::path::Path;

/// What `command` names with `.claude/<file>` holding `text`, when that
/// misses `file`.
fn missed(p: &Path, command: &str, code: Option<(&str, &str)>, file: &str) -> Option<String> {
    let named = named_by(p, command, code);
    (!named.contains(&file.to_owned())).then(|| format!("{command} {code:?}: {named:?}"))
}

#[test]
fn a_node_script_binds_its_package_scope_and_what_its_maps_name() {
    // R8-3: `#util` through `imports`, `proj/util` through `exports`.
    let (_dir, p) = project();
    write(
        &p.join("package.json"),
        "{\"name\":\"proj\",\"type\":\"module\",\"imports\":{\"#util\":\"./src/u.js\"},\
         \"exports\":{\"./util\":{\"node\":{\"import\":\"./src/v.js\"}}}}\n",
    );
    write(&p.join("src/u.js"), "export const ok = 1;\n");
    write(&p.join("src/v.js"), "export const ok = 1;\n");
    let mut missing = Vec::new();
    for (spec, file) in [("#util", "src/u.js"), ("proj/util", "src/v.js")] {
        let script = format!("import {{ ok }} from \"{spec}\";\n");
        write(&p.join("tools/check.mjs"), &script);
        for wanted in ["package.json", file] {
            missing.extend(missed(&p, "node tools/check.mjs", None, wanted));
            // The same script in the hook's own folder.
            missing.extend(missed(&p, "x", Some(("hooks/c.mjs", &script)), wanted));
        }
    }
    // The nearest package.json is the scope: a nested package's own.
    write(
        &p.join("pkg/package.json"),
        "{\"imports\":{\"#h\":\"./h.js\"}}\n",
    );
    write(&p.join("pkg/h.js"), "1\n");
    write(&p.join("pkg/tools/run.js"), "require('#h');\n");
    missing.extend(missed(&p, "node pkg/tools/run.js", None, "pkg/h.js"));
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn a_perl_module_name_and_a_hash_bang_include_switch_bind_the_module() {
    // R8-4.
    let (_dir, p) = project();
    write(&p.join("perl5/Acme/Check.pm"), "package Acme::Check;\n1;\n");
    write(&p.join("vendor/Evil.pm"), "package Evil;\n1;\n");
    write(&p.join("vendor/Acme/Base.pm"), "package Acme::Base;\n1;\n");
    let mut missing = Vec::new();
    for (script, file) in [
        (
            "#!/usr/bin/perl\nuse lib \"perl5\";\nuse Acme::Check;\n",
            "perl5/Acme/Check.pm",
        ),
        (
            "#!/usr/bin/perl\nuse lib 'perl5';\nrequire Acme::Check;\n",
            "perl5/Acme/Check.pm",
        ),
        ("#!/usr/bin/perl -Ivendor\nuse Evil;\n", "vendor/Evil.pm"),
        (
            "#!/usr/bin/perl -w -Ivendor\nuse parent -norequire, 'Acme::Base';\n",
            "vendor/Acme/Base.pm",
        ),
    ] {
        write(&p.join("tools/check.pl"), script);
        missing.extend(missed(&p, "perl tools/check.pl", None, file));
    }
    write(&p.join("tools/plain.pl"), "use Evil;\n");
    missing.extend(missed(
        &p,
        "perl -Ivendor tools/plain.pl",
        None,
        "vendor/Evil.pm",
    ));
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn a_tcl_package_on_auto_path_binds_its_index_and_what_it_sources() {
    // R8-5.
    let (_dir, p) = project();
    write(
        &p.join("tools/check.tcl"),
        "lappend auto_path [file join $env(CLAUDE_PROJECT_DIR) vendor]\npackage require acme\n",
    );
    write(
        &p.join("vendor/acme/pkgIndex.tcl"),
        "package ifneeded acme 1.0 [list source [file join $dir acme.tcl]]\n",
    );
    write(
        &p.join("vendor/acme/acme.tcl"),
        "package provide acme 1.0\n",
    );
    let command = "tclsh \"$CLAUDE_PROJECT_DIR/tools/check.tcl\"";
    let mut missing = Vec::new();
    for file in ["vendor/acme/pkgIndex.tcl", "vendor/acme/acme.tcl"] {
        missing.extend(missed(&p, command, None, file));
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn a_header_a_compiler_finds_through_its_include_folders_is_bound() {
    // R8-6.
    let (_dir, p) = project();
    write(
        &p.join("tools/check.c"),
        "#include \"helper.h\"\nint main(void) { return helper(); }\n",
    );
    write(&p.join("inc/helper.h"), "int helper(void) { return 0; }\n");
    let mut missing = Vec::new();
    for command in [
        "cc -Iinc -o /tmp/c tools/check.c && /tmp/c",
        "gcc -I inc tools/check.c",
        "clang -iquote inc tools/check.c",
        "tcc -I\"$CLAUDE_PROJECT_DIR/inc\" -run tools/check.c",
    ] {
        missing.extend(missed(&p, command, None, "inc/helper.h"));
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn a_module_run_from_a_src_layout_is_bound() {
    // R8-7 (a `.pth` naming the folder: through the binary).
    let (_dir, p) = project();
    write(&p.join("src/acme/__init__.py"), "");
    write(&p.join("src/acme/check.py"), "x = 1\n");
    let mut missing = Vec::new();
    for command in ["python3 -m acme.check", "python3 -c 'import acme.check'"] {
        missing.extend(missed(&p, command, None, "src/acme/check.py"));
    }
    assert!(missing.is_empty(), "{missing:#?}");
}

#[test]
fn code_that_runs_git_binds_what_the_repository_configuration_runs() {
    // R8-8.
    let (_dir, p) = project();
    write(
        &p.join(".git/config"),
        "[core]\n\tfsmonitor = scripts/fsmon.sh\n\thooksPath = .githooks\n\
         [alias]\n\tst = !sh tools/st.sh\n[include]\n\tpath = ../extra.cfg\n",
    );
    write(
        &p.join("extra.cfg"),
        "[diff \"x\"]\n\ttextconv = tools/conv.sh\n",
    );
    write(&p.join(".git/HEAD"), "ref: refs/heads/main\n");
    for file in [
        "scripts/fsmon.sh",
        "tools/st.sh",
        "tools/conv.sh",
        ".githooks/pre-commit",
    ] {
        write(&p.join(file), "#!/bin/sh\ntrue\n");
    }
    let mut missing = Vec::new();
    for command in [
        "git -C \"$CLAUDE_PROJECT_DIR\" status --porcelain",
        "cat >/dev/null; git status >/dev/null 2>&1; true",
    ] {
        for file in [
            ".git/config",
            "extra.cfg",
            "scripts/fsmon.sh",
            "tools/st.sh",
            "tools/conv.sh",
            ".githooks/pre-commit",
        ] {
            missing.extend(missed(&p, command, None, file));
        }
    }
    let python = "import subprocess\nsubprocess.run(['git', 'status'])\n";
    missing.extend(missed(
        &p,
        "x",
        Some(("hooks/s.py", python)),
        "scripts/fsmon.sh",
    ));
    assert!(missing.is_empty(), "{missing:#?}");
    // Code that runs no git binds none of it.
    let named = named_by(&p, "cat .git/HEAD", None);
    assert!(!named.contains(&".git/config".to_owned()), "{named:?}");
}
