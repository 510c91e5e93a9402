//! A native library's file is checked around loading: writable by group or
//! others is refused before its code runs, changed while loading is refused
//! after, each with an error naming the file.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use hermes_hooks_plugin::{DiscoverOptions, LoadError, NativePlugin, PluginStatus, discover_with};

use crate::support::{Home, example_library, raw_library};

fn set_mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn a_library_writable_by_group_or_others_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = dir.path().join("libguard_copy.so");
    std::fs::copy(example_library("plugin-guard"), &library).expect("copy");
    for mode in [0o775, 0o757, 0o777] {
        set_mode(&library, mode);
        match NativePlugin::load(&library) {
            Err(LoadError::Writable { library: named, .. }) => assert_eq!(named, library),
            other => panic!("mode {mode:o}: {other:?}"),
        }
    }
    set_mode(&library, 0o755);
    assert!(NativePlugin::load(&library).is_ok());
}

#[test]
fn a_writable_library_in_a_home_fails_with_a_message_naming_it() {
    let home = Home::new();
    let dir = home.example_plugin("guard", "");
    let library = std::fs::read_dir(&dir)
        .expect("plugin dir")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.extension()
                .is_some_and(|ext| ext == "so" || ext == "dylib")
        })
        .expect("a library");
    set_mode(&library, 0o666);
    let config = home.config("plugins: {enabled: [guard]}");
    let discovery = discover_with(home.path(), &config, DiscoverOptions::default());
    let guard = discovery
        .found
        .iter()
        .find(|info| info.key == "guard")
        .expect("listed");
    match &guard.status {
        PluginStatus::Failed(why) => {
            assert!(why.contains("writable by group or others"), "{why}");
            assert!(why.contains(&library.display().to_string()), "{why}");
        }
        other => panic!("{other:?}"),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_library_that_changes_while_it_loads_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let library = dir.path().join("libraw_touches_itself.so");
    std::fs::copy(raw_library("touches_itself"), &library).expect("copy");
    set_mode(&library, 0o755);
    match NativePlugin::load(&library) {
        Err(error @ LoadError::Changed { .. }) => {
            let text = error.to_string();
            assert!(text.contains(&library.display().to_string()), "{text}");
            assert!(text.contains("atomic `mv`"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}
