//! Tests of `header_key.rs`: the key made once (0600) and shared, fingerprints by value and key, none without a key.

use std::os::unix::fs::PermissionsExt;

use super::{FingerprintKey, KEY_FILE, KEY_LEN};

/// The key is made once, mode 0600, and read back after: the same
/// fingerprints from a later process.
#[test]
fn the_key_is_made_once_0600_and_reused() {
    let dir = tempfile::tempdir().expect("dir");
    let first = FingerprintKey::in_folder(dir.path());
    let path = dir.path().join(KEY_FILE);
    let meta = std::fs::metadata(&path).expect("the key file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.len(), KEY_LEN as u64);
    let bytes = std::fs::read(&path).expect("read");
    let again = FingerprintKey::in_folder(dir.path());
    assert_eq!(std::fs::read(&path).expect("read"), bytes, "rewritten");
    let value = b"Bearer hunter2";
    assert_eq!(first.fingerprint(value), again.fingerprint(value));
    // No temporary file is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name())
        .collect();
    assert_eq!(names, [KEY_FILE], "{names:?}");
}

/// Processes racing to make the key all end with the one that won.
#[test]
fn racing_makers_agree_on_one_key() {
    let dir = tempfile::tempdir().expect("dir");
    let prints: Vec<_> = std::thread::scope(|scope| {
        let makers: Vec<_> = (0..16)
            .map(|_| scope.spawn(|| FingerprintKey::in_folder(dir.path()).fingerprint(b"x")))
            .collect();
        makers
            .into_iter()
            .map(|m| m.join().expect("thread"))
            .collect()
    });
    assert!(prints[0].is_some());
    assert!(prints.iter().all(|p| *p == prints[0]), "{prints:?}");
}

/// Two values show different fingerprints; one value under two homes' keys
/// too (a fingerprint seen in one home's log says nothing in another's).
#[test]
fn fingerprints_differ_by_value_and_by_key() {
    let (one, two) = (
        tempfile::tempdir().expect("dir"),
        tempfile::tempdir().expect("dir"),
    );
    let key = FingerprintKey::in_folder(one.path());
    let other = FingerprintKey::in_folder(two.path());
    let print = |key: &FingerprintKey, value: &str| key.fingerprint(value.as_bytes()).expect("key");
    assert_ne!(print(&key, "Bearer hunter2"), print(&key, "Bearer hunter3"));
    assert_ne!(
        print(&key, "Bearer hunter2"),
        print(&other, "Bearer hunter2")
    );
    let shown = print(&key, "Bearer hunter2");
    assert!(
        shown.len() == 13
            && shown.starts_with("hmac:")
            && shown[5..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{shown}"
    );
}

/// A key that cannot be read, or made (a read-only home), gives no
/// fingerprint: never an unkeyed one, and no error.
#[test]
fn no_key_no_fingerprint() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join(KEY_FILE);
    // Not a key: the wrong length.
    std::fs::write(&path, b"short").expect("write");
    assert_eq!(
        FingerprintKey::in_folder(dir.path()).fingerprint(b"x"),
        None
    );
    // Unreadable (root reads it anyway: skip that part there).
    std::fs::write(&path, [7u8; KEY_LEN]).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&path).is_err() {
        let key = FingerprintKey::in_folder(dir.path());
        assert!(!key.is_some());
        assert_eq!(key.fingerprint(b"x"), None);
    }
    // Not a file (root reads any file: this is unreadable as a key to it too).
    std::fs::remove_file(&path).expect("rm");
    std::fs::create_dir(&path).expect("mkdir");
    assert_eq!(
        FingerprintKey::in_folder(dir.path()).fingerprint(b"x"),
        None
    );
    // A folder where none can be made.
    let missing = dir.path().join("no/such/home");
    assert_eq!(FingerprintKey::in_folder(&missing).fingerprint(b"x"), None);
    let read_only = tempfile::tempdir().expect("dir");
    std::fs::set_permissions(read_only.path(), std::fs::Permissions::from_mode(0o555))
        .expect("chmod");
    if std::fs::write(read_only.path().join("probe"), b"").is_err() {
        assert_eq!(
            FingerprintKey::in_folder(read_only.path()).fingerprint(b"x"),
            None
        );
    }
    assert_eq!(FingerprintKey::none().fingerprint(b"x"), None);
}
