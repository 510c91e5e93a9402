//! Tests of shim detection and of what a shim's fingerprint depends on.

use super::*;
use std::collections::HashMap;

const PYENV_SHIM: &str = "#!/usr/bin/env bash\nset -e\nprogram=\"${0##*/}\"\n\
export PYENV_ROOT=\"@ROOT@\"\nexec \"@ROOT@/libexec/pyenv\" exec \"$program\" \"$@\"\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    cwd: PathBuf,
    shim: VersionShim,
}

fn pyenv() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pyenv");
    let shim_path = root.join("shims/python3");
    write(
        &shim_path,
        &PYENV_SHIM.replace("@ROOT@", &root.display().to_string()),
    );
    std::fs::create_dir_all(root.join("versions/3.11.7")).unwrap();
    write(&root.join("version"), "3.11.7\n");
    let cwd = dir.path().join("work/project");
    std::fs::create_dir_all(&cwd).unwrap();
    let shim = VersionShim::detect(&shim_path).expect("a pyenv shim");
    Fixture {
        _dir: dir,
        root,
        cwd,
        shim,
    }
}

fn print(fixture: &Fixture, vars: &[(&str, &str)]) -> String {
    let vars: HashMap<String, OsString> = vars
        .iter()
        .map(|(name, value)| (name.to_string(), OsString::from(value)))
        .collect();
    fixture
        .shim
        .fingerprint_with(&|name| vars.get(name).cloned(), &fixture.cwd)
}

#[test]
fn pyenv_and_asdf_shims_are_known_and_other_scripts_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let asdf = dir.path().join("asdf-python3");
    write(
        &asdf,
        "#!/usr/bin/env bash\n# asdf-plugin: python 3.12.1\nexec asdf exec \"python3\" \"$@\" # asdf_allow: ' asdf '\n",
    );
    assert_eq!(
        VersionShim::detect(&asdf).map(|shim| shim.manager()),
        Some(ShimManager::Asdf)
    );
    assert_eq!(pyenv().shim.manager(), ShimManager::Pyenv);
    // A site wrapper that sets the path its plugins import from is not a
    // version shim: it must run every time.
    let wrapper = dir.path().join("python3");
    write(
        &wrapper,
        "#!/bin/sh\nPYTHONPATH=/opt/site\nexport PYTHONPATH\nexec /usr/bin/python3 \"$@\"\n",
    );
    assert_eq!(VersionShim::detect(&wrapper), None);
    let options = dir.path().join("python3-isolated");
    write(&options, "#!/bin/sh\nexec /usr/bin/env python3 -I \"$@\"\n");
    assert_eq!(VersionShim::detect(&options), None);
    // A binary, a missing file.
    let binary = dir.path().join("real");
    std::fs::write(&binary, b"\x7fELF\x02\x01").unwrap();
    assert_eq!(VersionShim::detect(&binary), None);
    assert_eq!(VersionShim::detect(&dir.path().join("gone")), None);
}

#[test]
fn a_pyenv_fingerprint_follows_every_version_choice() {
    let fixture = pyenv();
    let base = print(&fixture, &[]);
    assert_eq!(base, print(&fixture, &[]), "stable");
    // `PYENV_VERSION`.
    assert_ne!(base, print(&fixture, &[("PYENV_VERSION", "3.12.1")]));
    // `pyenv local` in the project, or in a parent directory.
    let local = fixture.cwd.join(".python-version");
    write(&local, "3.12.1\n");
    let with_local = print(&fixture, &[]);
    assert_ne!(base, with_local);
    write(&local, "3.13.0\n");
    assert_ne!(with_local, print(&fixture, &[]));
    std::fs::remove_file(&local).unwrap();
    assert_eq!(base, print(&fixture, &[]));
    write(
        &fixture.cwd.parent().unwrap().join(".python-version"),
        "3.10\n",
    );
    assert_ne!(base, print(&fixture, &[]));
    std::fs::remove_file(fixture.cwd.parent().unwrap().join(".python-version")).unwrap();
    // `pyenv global`.
    write(&fixture.root.join("version"), "3.12.1\n");
    assert_ne!(base, print(&fixture, &[]));
    write(&fixture.root.join("version"), "3.11.7\n");
    assert_eq!(base, print(&fixture, &[]));
    // A newly installed version (a `3.11` file may now pick it).
    std::fs::create_dir_all(fixture.root.join("versions/3.11.9")).unwrap();
    assert_ne!(base, print(&fixture, &[]));
}

#[test]
fn an_asdf_fingerprint_follows_tool_versions() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let shim_path = home.join(".asdf/shims/python3");
    write(
        &shim_path,
        "#!/usr/bin/env bash\nexec asdf exec \"python3\" \"$@\"\n",
    );
    let shim = VersionShim::detect(&shim_path).expect("an asdf shim");
    let cwd = dir.path().join("project");
    std::fs::create_dir_all(&cwd).unwrap();
    let home_var = home.clone().into_os_string();
    let vars = |name: &str| (name == "HOME").then(|| home_var.clone());
    let base = shim.fingerprint_with(&vars, &cwd);
    write(&home.join(".tool-versions"), "python 3.12.1\n");
    let global = shim.fingerprint_with(&vars, &cwd);
    assert_ne!(base, global);
    write(&cwd.join(".tool-versions"), "python 3.11.7\n");
    assert_ne!(global, shim.fingerprint_with(&vars, &cwd));
    std::fs::create_dir_all(home.join(".asdf/installs/python/3.13.0")).unwrap();
    let installed = shim.fingerprint_with(&vars, &cwd);
    let with_var = |name: &str| match name {
        "HOME" => Some(home_var.clone()),
        "ASDF_PYTHON_VERSION" => Some("3.13.0".into()),
        _ => None,
    };
    assert_ne!(installed, shim.fingerprint_with(&with_var, &cwd));
}

#[test]
fn an_edited_shim_or_another_directory_is_another_fingerprint() {
    let fixture = pyenv();
    let base = print(&fixture, &[]);
    let parent = fixture.cwd.parent().unwrap();
    assert_ne!(base, fixture.shim.fingerprint_with(&|_| None, parent));
    let mut edited = fixture.shim.clone();
    edited.script.extend_from_slice(b"# edited\n");
    assert_ne!(
        base,
        edited.fingerprint_with(&|_| None, &fixture.cwd),
        "the shim's own bytes count"
    );
}
