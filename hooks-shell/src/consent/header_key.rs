//! The per-home key of the fingerprints shown for secret values (red team
//! round 37/39: an 8-hex unkeyed SHA-256 of `Bearer hunter2`, shown in a CI
//! log or a screenshot, is brute-forced offline from a word list). A
//! fingerprint is the first 8 hex digits of HMAC-SHA256 under a random
//! 32-byte key kept beside the allowlist ([`KEY_FILE`], mode 0600), made
//! on first use. Without a key (a read-only home, an unreadable file) no
//! fingerprint is shown: never an unkeyed one.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::allowlist::Allowlist;

/// The key's file name, in the folder of the allowlist (the Hermes home).
pub const KEY_FILE: &str = "shell-hooks-fingerprint.key";

/// The key's length in bytes.
const KEY_LEN: usize = 32;

/// The key shown fingerprints are made with, or none (then none are shown).
#[derive(Clone, Default)]
pub struct FingerprintKey(Option<[u8; KEY_LEN]>);

impl std::fmt::Debug for FingerprintKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key itself.
        f.debug_tuple("FingerprintKey")
            .field(&self.0.map(|_| "…"))
            .finish()
    }
}

impl FingerprintKey {
    /// No key: no fingerprint is shown.
    pub fn none() -> FingerprintKey {
        FingerprintKey(None)
    }

    /// The key of the home `allowlist` is in, made on first use; none (with
    /// a debug note) when it can be neither read nor made.
    pub fn of_allowlist(allowlist: &Allowlist) -> FingerprintKey {
        let folder = allowlist.path().parent().unwrap_or(Path::new("."));
        FingerprintKey::in_folder(folder)
    }

    /// The key in `folder` ([`KEY_FILE`]), made on first use; none when it
    /// can be neither read nor made.
    pub fn in_folder(folder: &Path) -> FingerprintKey {
        match load_or_create(folder) {
            Ok(key) => FingerprintKey(Some(key)),
            Err(error) => {
                tracing::debug!(
                    "no fingerprint key in {}: {error}; fingerprints are not shown",
                    folder.display()
                );
                FingerprintKey(None)
            }
        }
    }

    /// Whether there is a key.
    pub fn is_some(&self) -> bool {
        self.0.is_some()
    }

    /// `hmac:<8 hex>` of `value` under this key; `None` without a key.
    pub fn fingerprint(&self, value: &[u8]) -> Option<String> {
        let key = self.0.as_ref()?;
        let mut mac = Hmac::<Sha256>::new_from_slice(key).ok()?;
        mac.update(value);
        let digest = mac.finalize().into_bytes();
        Some(format!("hmac:{}", &hex::encode(digest)[..8]))
    }
}

/// Reads the key in `folder`, else makes one there: written whole to a
/// temporary file (0600), then linked to its name, which never replaces
/// one already there; whichever process linked first wins, and every
/// process reads back the key that won.
fn load_or_create(folder: &Path) -> std::io::Result<[u8; KEY_LEN]> {
    let path = folder.join(KEY_FILE);
    match read_key(&path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        read => return read,
    }
    let mut key = [0u8; KEY_LEN];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let temporary = folder.join(format!(".{KEY_FILE}.{}.{nanos}", std::process::id()));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(&key)?;
        file.sync_all()
    })();
    let linked = written.and_then(|()| match std::fs::hard_link(&temporary, &path) {
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        linked => linked,
    });
    let _ = std::fs::remove_file(&temporary);
    linked?;
    read_key(&path)
}

/// The key at `path`: a regular file of exactly [`KEY_LEN`] bytes.
fn read_key(path: &Path) -> std::io::Result<[u8; KEY_LEN]> {
    let file = std::fs::File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "not a regular file",
        ));
    }
    let mut bytes = Vec::with_capacity(KEY_LEN + 1);
    file.take(KEY_LEN as u64 + 1).read_to_end(&mut bytes)?;
    bytes.try_into().map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not a {KEY_LEN}-byte key"),
        )
    })
}

#[cfg(test)]
#[path = "header_key_tests.rs"]
mod tests;
