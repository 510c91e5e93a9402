//! Tests: every spelling of an option that names where the definitions are
//! binds the file the program reads (red-team round 4, N7), or makes the
//! reading unsure (the hook tree is bound then); never another file alone.

use std::path::Path;

use super::reached;

fn write(base: &Path, relative: &str, text: &str) {
    let path = base.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn binds(root: &Path, command: &str, file: &str) {
    let found = reached(command, root, true);
    assert!(
        found.roots.contains(&root.join(file)),
        "{command} does not bind {file}: {found:?}"
    );
    assert_eq!(found.opaque, None, "{command}");
}

#[test]
fn every_spelling_of_makes_file_folder_and_include_options_binds_what_it_reads() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(root, "tools/x.mk", "check:\n\t@:\n");
    write(root, "tools/Makefile", "include rules.mk\n");
    write(root, "top.mk", "include x.mk\n");
    for command in [
        "make -ftools/x.mk check",
        "make -f tools/x.mk check",
        "make -sftools/x.mk check",
        "make -sf tools/x.mk check",
        "make --file=tools/x.mk check",
        "make --file tools/x.mk",
        "make --makefile=tools/x.mk",
        "make --makef tools/x.mk",
        "make check -j 4 -f tools/x.mk",
        "make -C tools -f x.mk",
        "make -Ctools --file=x.mk",
        "MAKEFILES=tools/x.mk make check",
        "make MAKEFILES=tools/x.mk check",
        "make -f top.mk -Itools",
        "make -f top.mk --include-dir=tools",
        "make -f top.mk -I tools",
        "MAKEFLAGS=-Itools make -f top.mk",
    ] {
        binds(root, command, "tools/x.mk");
    }
    for command in [
        "make -Ctools check",
        "make -C tools check",
        "make -sC tools",
        "make --directory=tools check",
        "make --directory tools",
        "make --dir=tools",
        "make -C . -C tools",
        "env -C tools make check",
        "env -Ctools make check",
        "env --chdir=tools make check",
        "env --chdir tools make",
        "env -i -u HOME -C tools FOO=1 make",
        "env -S'-C tools make' check",
        "timeout -s KILL 5 nice -n 2 nohup env -C tools make",
        "exec -a x stdbuf -oL setsid -f env -C tools make",
        "cd tools && make",
        "cd -P -- tools; make",
        "pushd tools >/dev/null && make",
        "sh -c 'cd tools && make -s'",
        "env -C tools sh -c 'make -s'",
    ] {
        binds(root, command, "tools/Makefile");
        binds(root, command, "tools/rules.mk");
    }
}

#[test]
fn what_cannot_be_read_exactly_is_unsure() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    for command in [
        "make --eval='include tools/x.mk' check",
        "make -E 'include x.mk'",
        "make -X",
        "make --d=tools",
        "make -f",
        "env --frob tools make",
        "env -S'make -f $X'",
        "cd - && make",
        "npm -Cweb run lint",
        "npm --pre web run lint",
        "cargo --config 'build.rustc-wrapper=\"tools/w\"' build",
    ] {
        let found = reached(command, root, true);
        assert!(found.opaque.is_some(), "{command}: {found:?}");
    }
    assert_eq!(reached("make -s check", root, true).opaque, None);
}

#[test]
fn just_reads_its_file_folder_module_and_the_folders_above() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(root, "tools/j", "mod extra\n");
    write(root, "tools/extra.just", "x:\n");
    write(root, "tools/justfile", "x:\n");
    write(root, "JustFile", "import 'mk/base.just'\n");
    write(root, "mk/base.just", "y:\n");
    write(root, "sub/keep", "");
    binds(root, "just -f tools/j x", "tools/j");
    binds(root, "just --justfile=tools/j x", "tools/extra.just");
    binds(root, "just -d tools --justfile tools/j x", "tools/j");
    binds(root, "just tools/x", "tools/justfile");
    binds(root, "just y", "JustFile");
    let found = reached("cd sub && just y", root, true);
    assert!(found.roots.contains(&root.join("JustFile")), "{found:?}");
    assert!(
        found.roots.contains(&root.join("mk/base.just")),
        "{found:?}"
    );
}

#[test]
fn cargo_reads_beside_the_manifest_it_is_given_and_above_where_it_runs() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(root, "Cargo.toml", "[workspace]\n");
    write(root, "crates/a/Cargo.toml", "[package]\n");
    write(root, "sub/keep", "");
    for command in [
        "cargo run --manifest-path crates/a/Cargo.toml",
        "cargo run --manifest-path=crates/a/Cargo.toml",
    ] {
        binds(root, command, "crates/a/Cargo.toml");
        binds(root, command, "crates/a/src");
        binds(root, command, "crates/a/build.rs");
    }
    let found = reached("cd sub && cargo run", root, true);
    assert!(found.roots.contains(&root.join("Cargo.toml")), "{found:?}");
    assert!(found.roots.contains(&root.join("sub/Cargo.toml")));
    binds(root, "npm -C web run lint", "web/package.json");
    binds(root, "npm --prefix=web run lint", "web/package.json");
    binds(root, "task -d web x", "web/Taskfile.yml");
    binds(root, "task --taskfile web/T.yml x", "web/T.yml");
}
