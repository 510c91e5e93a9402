//! The watch of the files a hook reads by path: swaps seen, other entries not.

use std::os::unix::fs::symlink;

use super::Watched;

#[test]
fn a_file_swapped_and_put_back_while_watched_is_a_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("lib.sh");
    std::fs::write(&lib, "true\n").expect("write");
    let watched = Watched::start(std::slice::from_ref(&lib));
    assert_eq!(watched.changed(), None);
    // Renamed over, then the first content renamed back.
    std::fs::rename(&lib, dir.path().join("keep")).expect("rename");
    std::fs::write(dir.path().join("evil"), "touch PWNED\n").expect("write");
    std::fs::rename(dir.path().join("evil"), &lib).expect("rename");
    std::fs::rename(dir.path().join("keep"), &lib).expect("rename");
    assert!(watched.changed().is_some());
}

#[test]
fn a_file_rewritten_in_place_and_back_is_a_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("lib.py");
    std::fs::write(&lib, "x = 1\n").expect("write");
    let watched = Watched::start(std::slice::from_ref(&lib));
    std::fs::write(&lib, "import os\n").expect("write");
    std::fs::write(&lib, "x = 1\n").expect("write");
    assert!(watched.changed().is_some());
}

#[test]
fn a_link_on_the_way_swapped_and_put_back_is_a_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (folder, text) in [("good", "true\n"), ("evil", "touch PWNED\n")] {
        std::fs::create_dir(dir.path().join(folder)).expect("mkdir");
        std::fs::write(dir.path().join(folder).join("lib.sh"), text).expect("write");
    }
    symlink("good", dir.path().join("b")).expect("symlink");
    let lib = dir.path().join("b/lib.sh");
    let watched = Watched::start(std::slice::from_ref(&lib));
    symlink("evil", dir.path().join("b2")).expect("symlink");
    std::fs::rename(dir.path().join("b2"), dir.path().join("b")).expect("swap");
    symlink("good", dir.path().join("b3")).expect("symlink");
    std::fs::rename(dir.path().join("b3"), dir.path().join("b")).expect("swap back");
    assert!(watched.changed().is_some());
}

#[test]
fn other_files_of_its_folders_changing_are_no_change() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("tools/lib.py");
    std::fs::create_dir(dir.path().join("tools")).expect("mkdir");
    std::fs::write(&lib, "x = 1\n").expect("write");
    let watched = Watched::start(std::slice::from_ref(&lib));
    // What running it writes beside it: a bytecode cache, a log.
    std::fs::create_dir(dir.path().join("tools/__pycache__")).expect("mkdir");
    std::fs::write(dir.path().join("tools/__pycache__/lib.pyc"), "x").expect("write");
    std::fs::write(dir.path().join("hook.log"), "ran\n").expect("write");
    let _ = std::fs::read_to_string(&lib).expect("read");
    assert_eq!(watched.changed(), None);
}

#[test]
fn a_file_changed_between_its_binding_and_the_watch_differs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let lib = dir.path().join("lib.sh");
    std::fs::write(&lib, "true\n").expect("write");
    let bound = [(lib.clone(), crate::fingerprint::content_or_metadata(&lib))].into();
    let missing = dir.path().join("missing.sh");
    let unmade = [(missing.clone(), "missing".to_owned())].into();
    assert_eq!(
        Watched::start(std::slice::from_ref(&missing)).differs_from(&unmade),
        None
    );
    std::fs::write(&lib, "touch PWNED\n").expect("write");
    let watched = Watched::start(std::slice::from_ref(&lib));
    assert_eq!(watched.differs_from(&bound), Some(lib.as_path()));
}
