//! Tests of what a folder Python searches first binds.

use super::*;

fn write(folder: &Path, name: &str, text: &str) {
    let path = folder.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
    std::fs::write(&path, text).expect("file");
}

#[test]
fn what_python_may_import_changes_the_digest_and_other_files_do_not() {
    assert!(STANDARD_MODULES.windows(2).all(|pair| pair[0] < pair[1]));
    let folder = tempfile::tempdir().expect("folder");
    write(folder.path(), "check.py", "import subprocess\n");
    write(folder.path(), "html/index.html", "<p>\n");
    let (_, mut before) = shadows(folder.path()).expect("digest");
    write(folder.path(), "README.md", "x\n");
    write(folder.path(), "html/more.html", "<p>\n");
    assert_eq!(shadows(folder.path()).expect("digest").1, before);
    for name in [
        "selectors.py",
        "simplejson.py",
        "random.pyc",
        "zz.pth",
        "json/__init__.py",
        "__pycache__/tempfile.cpython-311.pyc",
        "org/python/core.py",
    ] {
        write(folder.path(), name, "");
        let (key, after) = shadows(folder.path()).expect("digest");
        assert_ne!(after, before, "{name}");
        assert!(key.to_string_lossy().contains("check.py"), "{key:?}");
        write(folder.path(), name, "import os\n");
        let changed = shadows(folder.path()).expect("digest").1;
        // A folder that is no package named as an installed one is bound
        // by its name: what it holds is bound where code names it.
        if !name.starts_with("org/") {
            assert_ne!(changed, after, "{name}");
        }
        before = changed;
    }
}

#[test]
fn a_file_bigger_than_any_module_is_bound_by_its_metadata() {
    let folder = tempfile::tempdir().expect("folder");
    let big = std::fs::File::create(folder.path().join("selectors.py")).expect("file");
    big.set_len(MAX_HASHED + 1).expect("sparse");
    let (_, before) = shadows(folder.path()).expect("digest");
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
    big.set_modified(later).expect("touched");
    assert_ne!(shadows(folder.path()).expect("digest").1, before);
}

#[test]
fn what_is_not_a_regular_file_is_bound_unopened() {
    let folder = tempfile::tempdir().expect("folder");
    std::os::unix::fs::symlink("/dev/zero", folder.path().join("selectors.py")).expect("link");
    nix::unistd::mkfifo(
        &folder.path().join("socket.py"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .expect("fifo");
    let (key, _) = shadows(folder.path()).expect("digest without opening either");
    assert!(key.to_string_lossy().contains("selectors.py"), "{key:?}");
}
