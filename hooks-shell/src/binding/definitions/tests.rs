//! Tests of which definitions a command runs.

use std::path::Path;

use super::reached;

fn write(base: &Path, relative: &str, text: &str) {
    let path = base.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

#[test]
fn make_binds_every_makefile_name_and_its_static_includes() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(
        root,
        "Makefile",
        "include mk/a.mk\n-include $(wildcard rules/*.mk)\n",
    );
    write(
        root,
        "mk/a.mk",
        "sinclude mk/b.mk\ncheck:\n\t@./tools/x.sh --fast && echo ok\n",
    );
    write(root, "tools/x.sh", "exit 0\n");
    let found = reached("cd . && make -s check", root, false);
    for name in [
        "GNUmakefile",
        "makefile",
        "Makefile",
        "mk/a.mk",
        "mk/b.mk",
        "rules",
        "tools/x.sh",
    ] {
        assert!(found.roots.contains(&root.join(name)), "{name}: {found:?}");
    }
    assert!(found.shadowing.is_empty());
}

#[test]
fn a_node_tool_is_bound_by_its_bin_and_package_folder() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(root, "node_modules/tool/bin/cli.js", "x\n");
    std::fs::create_dir_all(root.join("node_modules/.bin")).expect("mkdir");
    std::os::unix::fs::symlink("../tool/bin/cli.js", root.join("node_modules/.bin/tool"))
        .expect("link");
    let sub = root.join("src");
    std::fs::create_dir_all(&sub).expect("sub");
    for command in ["npx tool --fix", "bash -c 'npm exec tool@1'", "bunx tool"] {
        let found = reached(command, &sub, false);
        assert_eq!(
            found.roots,
            vec![
                root.join("node_modules/.bin/tool"),
                std::fs::canonicalize(root.join("node_modules/tool")).expect("real")
            ],
            "{command}"
        );
        assert_eq!(found.shadowing.len(), 1);
    }
    assert!(reached("npx other", &sub, false).is_empty());
    assert_eq!(
        reached("npx other", &sub, true).roots,
        vec![sub.join("node_modules/.bin/other")]
    );
}

#[test]
fn scripts_of_a_package_manager_bind_its_manifests() {
    let dir = tempfile::tempdir().expect("dir");
    let found = reached("FOO=1 npm --prefix web run lint", dir.path(), false);
    assert!(found.roots.contains(&dir.path().join("web/package.json")));
    assert!(
        found
            .roots
            .contains(&dir.path().join("web/package-lock.json"))
    );
    write(
        dir.path(),
        "web/package.json",
        r#"{"scripts": {"prelint": "sh tools/pre.sh", "lint": "node tools/lint.js"}}"#,
    );
    write(dir.path(), "web/tools/lint.js", "x\n");
    write(dir.path(), "web/tools/pre.sh", "x\n");
    let found = reached("npm --prefix web run lint", dir.path(), false);
    for file in ["web/tools/lint.js", "web/tools/pre.sh"] {
        assert!(
            found.roots.contains(&dir.path().join(file)),
            "{file}: {found:?}"
        );
    }
    let cargo = reached("cargo xtask lint", dir.path(), false);
    assert!(cargo.roots.contains(&dir.path().join("xtask")));
    assert!(reached("ls -la; echo make", dir.path(), false).is_empty());
}

#[test]
fn scripts_that_run_themselves_and_special_files_end() {
    let dir = tempfile::tempdir().expect("dir");
    write(
        dir.path(),
        "package.json",
        r#"{"scripts": {"lint": "npm run lint && bash -c 'npm run lint'"}}"#,
    );
    let found = reached("npm run lint", dir.path(), false);
    assert!(found.roots.contains(&dir.path().join("package.json")));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("Makefile")).expect("link");
    let fifo = dir.path().join("GNUmakefile");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let found = reached("make", dir.path(), false);
    assert!(found.roots.contains(&fifo));
}

/// Red-team round 5, F17: the programs a bound `.cargo/config.toml` names
/// are bound too (a wrapper, a runner, an alias's other manifest).
#[test]
fn cargo_binds_the_programs_its_configuration_names() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(root, "Cargo.toml", "[package]\nname = \"x\"\n");
    write(
        root,
        ".cargo/config.toml",
        "[build]\nrustc-wrapper = \"tools/wrap.sh\"\n[target.x86_64-unknown-linux-gnu]\nrunner = \"./tools/run.sh --fast\"\n[alias]\nlint = \"run --manifest-path tools/lint/Cargo.toml\"\n[registries.x]\nindex = \"https://example.com/index\"\n",
    );
    let found = reached("cargo check -q --offline", root, false);
    for name in [
        ".cargo/config.toml",
        "tools/wrap.sh",
        "tools/run.sh",
        "tools/lint/Cargo.toml",
        "tools/lint/src",
        "tools/lint/build.rs",
    ] {
        assert!(found.roots.contains(&root.join(name)), "{name}: {found:?}");
    }
    assert!(
        !found
            .roots
            .iter()
            .any(|r| r.to_string_lossy().contains("example.com")),
        "{found:?}"
    );
}

/// A `.cargo/config.toml` we cannot read whole cannot say what it names:
/// the reading is unsure (the hook tree is bound), never silently empty.
#[test]
fn a_cargo_configuration_that_does_not_parse_is_unsure() {
    let dir = tempfile::tempdir().expect("dir");
    let root = dir.path();
    write(root, "Cargo.toml", "[package]\nname = \"x\"\n");
    write(
        root,
        ".cargo/config.toml",
        "[build\nrustc-wrapper = \"tools/wrap.sh\"\n",
    );
    let found = reached("cargo check", root, false);
    assert!(found.opaque.is_some(), "{found:?}");
    write(
        root,
        ".cargo/config.toml",
        "[build]\nrustc-wrapper = \"tools/wrap.sh\"\n",
    );
    assert!(reached("cargo check", root, false).opaque.is_none());
}

#[test]
fn a_makefile_read_from_input_is_told_from_one_a_file_holds() {
    let args = |text: &str| -> Vec<String> { text.split(' ').map(str::to_owned).collect() };
    for input in [
        "-f -",
        "-sf -",
        "-f/dev/stdin",
        "--file=/dev/fd/3",
        "--makefile /proc/self/fd/0",
    ] {
        assert!(
            super::makefile_from_input(&args(input)).is_some(),
            "{input}"
        );
    }
    for file in [
        "-f tools/Makefile",
        "-sC sub -f mk/x.mk",
        "-s lint",
        "-j4 -k",
    ] {
        assert!(super::makefile_from_input(&args(file)).is_none(), "{file}");
    }
}

/// Round 55, H55-1: rustup's proxies read the toolchain file where they
/// run; one naming its toolchain by a path runs that folder's programs.
#[test]
fn a_rust_toolchain_named_by_a_path_cannot_be_approved() {
    let dir = tempfile::tempdir().expect("dir");
    write(
        dir.path(),
        "rust-toolchain.toml",
        "[toolchain]\nchannel = \"stable\"\n",
    );
    let found = reached("rustfmt --check src/main.rs", dir.path(), false);
    assert!(
        found
            .roots
            .contains(&dir.path().join("rust-toolchain.toml"))
    );
    assert_eq!(found.computed, None);
    write(dir.path(), "rust-toolchain", "1.75.0\n");
    assert_eq!(reached("rustc -V", dir.path(), false).computed, None);
    // Looked up from a folder it moves to, up to where it starts, present
    // or absent (round 56, r14).
    std::fs::create_dir_all(dir.path().join("src")).expect("src");
    let found = reached("cd src && rustfmt --check main.rs", dir.path(), false);
    for file in [
        "src/rust-toolchain.toml",
        "rust-toolchain.toml",
        "src/rust-toolchain",
    ] {
        assert!(
            found.roots.contains(&dir.path().join(file)),
            "{file}: {found:?}"
        );
    }
    write(
        dir.path(),
        "rust-toolchain.toml",
        "[toolchain]\npath = \"/proc/self/cwd/tc\"\n",
    );
    for (file, text) in [
        (
            "rust-toolchain.toml",
            "toolchain = { path = \"/proc/self/cwd/tc\" }\n",
        ),
        ("rust-toolchain", "/proc/self/cwd/tc\n"),
        // Round 56: a key as TOML spells it.
        (
            "rust-toolchain.toml",
            "[toolchain]\n\"\\u0070ath\" = \"/proc/self/cwd/tc\"\n",
        ),
        ("rust-toolchain.toml", "toolchain.\"pa\\u0074h\" = \"/x\"\n"),
        (
            "rust-toolchain",
            "[toolchain]\n\"\\U00000070ath\" = \"/x\"\n",
        ),
    ] {
        let other = tempfile::tempdir().expect("dir");
        write(other.path(), file, text);
        let found = reached("rustfmt x.rs", other.path(), false);
        assert!(found.computed.is_some(), "{text}: {found:?}");
    }
    for command in [
        "rustfmt --check src/main.rs",
        "rustc --version",
        "cargo fmt",
    ] {
        let found = reached(command, dir.path(), false);
        assert!(
            found
                .computed
                .as_deref()
                .is_some_and(|why| why.contains("by a path")),
            "{command}: {found:?}"
        );
    }
}
proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Whatever a hook's Node code holds, reading it for what it loads
    /// never panics (round 55: an unterminated string at its end did).
    #[test]
    fn reading_any_node_code_never_panics(pieces in proptest::collection::vec(0usize..NODE_PIECES.len(), 0..24)) {
        let dir = tempfile::tempdir().expect("dir");
        let code: String = pieces.iter().map(|&at| NODE_PIECES[at]).collect();
        let _ = super::node_code_reaches(&code, dir.path(), dir.path());
        let _ = reached(&format!("node -e '{}'", code.replace('\'', "")), dir.path(), false);
    }
}

/// Pieces of Node code the property above puts together.
const NODE_PIECES: [&str; 40] = [
    "require(",
    ")",
    "(",
    "`${",
    "}`",
    "\"",
    "'",
    "process.cwd()",
    "+",
    "path.join(",
    ",",
    "\"m\"",
    "[",
    "]",
    ".join(\"/\")",
    "new Worker(",
    "createRequire(",
    "const p = require(\"path\");",
    "p.resolve(",
    "||",
    "?",
    ":",
    "\u{e9}",
    "#m",
    "import(",
    "\\",
    "/*",
    "*/",
    "//",
    "\n",
    "=",
    "x",
    ";",
    "{",
    "}",
    "...",
    "require.resolve(",
    "module.require(",
    "import x from \"#m\"",
    "\u{1f642}",
];

/// Round 56: package scripts running each other many ways over (each of
/// ten `run-s "s*"`, two running each other twice) cannot be approved,
/// decided after a bounded reading (their binding took minutes).
#[test]
fn scripts_running_each_other_many_ways_over_cannot_be_approved() {
    let ten: Vec<String> = (0..10)
        .map(|at| format!("\"s{at}\": \"run-s 's*'\""))
        .collect();
    for manifest in [
        format!("{{\"scripts\": {{\"test\": \"run-s 's*'\", {}}}}}", ten.join(", ")),
        "{\"scripts\": {\"test\": \"npm run a\", \"a\": \"npm run b && npm run b && bash -c 'npm run b'\", \"b\": \"npm run a && npm run a && bash -c 'npm run a'\"}}".to_owned(),
    ] {
        let dir = tempfile::tempdir().expect("dir");
        write(dir.path(), "package.json", &manifest);
        let found = reached("npm test", dir.path(), false);
        assert!(found.computed.is_some(), "{manifest}: {found:?}");
    }
}
