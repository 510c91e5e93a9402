//! Tests of how links and deep hidden paths are cut out of the roots.

use std::os::unix::fs::symlink;

use super::*;

fn age(dir: &Path) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::open(dir).unwrap().set_modified(old).unwrap();
}

fn paths(resolved: &Resolved) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = resolved.entries.iter().map(|e| e.path.clone()).collect();
    paths.sort();
    paths
}

#[test]
fn links_among_the_entries_of_a_cut_root_grant_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(home.join("code")).unwrap();
    symlink(".ssh", home.join("x")).unwrap();
    symlink(".", home.join("itself")).unwrap();
    symlink("/", home.join("everything")).unwrap();
    let mut enumerated = Vec::new();
    let shown = visible(
        std::slice::from_ref(&home),
        &[home.join(".ssh")],
        &mut enumerated,
    );
    assert_eq!(shown, [home.join("code")]);
    assert_eq!(enumerated, [home]);
}

#[test]
fn a_hidden_path_deeper_than_any_bound_stays_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    let deep = home.join("a/b/c/d/e/f/g/h/i/j/k");
    std::fs::create_dir_all(deep.join("secret")).unwrap();
    std::fs::create_dir_all(deep.join("other")).unwrap();
    let secret = deep.join("secret");
    let mut enumerated = Vec::new();
    let shown = visible(
        std::slice::from_ref(&home),
        std::slice::from_ref(&secret),
        &mut enumerated,
    );
    assert_eq!(shown, [deep.join("other")]);
    assert!(shown.iter().all(|path| !secret.starts_with(path)));
}

#[test]
fn a_root_that_leads_into_a_hidden_path_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(home.join(".ssh/keys")).unwrap();
    symlink(".ssh/keys", home.join("tool")).unwrap();
    let mut enumerated = Vec::new();
    let shown = visible(&[home.join("tool")], &[home.join(".ssh")], &mut enumerated);
    assert!(shown.is_empty(), "{shown:?}");
}

#[test]
fn a_secret_store_re_pointed_is_hidden_where_it_now_leads() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().canonicalize().unwrap();
    for folder in ["dotfiles/ssh", "other/ssh"] {
        std::fs::create_dir_all(home.join(folder)).unwrap();
    }
    symlink("dotfiles/ssh", home.join(".ssh")).unwrap();
    for folder in [&home, &home.join("dotfiles"), &home.join("other")] {
        age(folder);
    }
    let hidden = [home.join(".ssh")];
    let resolve_home = || resolve(std::slice::from_ref(&home), &[], &hidden, &[], ABI::V1);
    let first = resolve_home();
    assert_eq!(paths(&first), [home.join("other")]);
    assert!(Arc::ptr_eq(&first, &resolve_home()), "not reused");
    // Re-pointed with the home's timestamp put back: only where the hidden
    // path now leads shows the change.
    let before = std::fs::metadata(&home).unwrap().modified().unwrap();
    std::fs::remove_file(home.join(".ssh")).unwrap();
    symlink("other/ssh", home.join(".ssh")).unwrap();
    std::fs::File::open(&home)
        .unwrap()
        .set_modified(before)
        .unwrap();
    let second = resolve_home();
    assert!(
        !Arc::ptr_eq(&first, &second),
        "a stale resolution was reused"
    );
    assert_eq!(paths(&second), [home.join("dotfiles")]);
}
