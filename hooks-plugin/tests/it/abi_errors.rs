//! Libraries that are not valid plugins give clear errors naming the library.

use hermes_hooks_plugin::{DiscoverOptions, LoadError, NativePlugin, PluginStatus, discover_with};

use crate::support::{Home, raw_library};

fn load_error(library: &std::path::Path) -> LoadError {
    match NativePlugin::load(library) {
        Ok(plugin) => panic!("{} loaded as {plugin:?}", library.display()),
        Err(error) => error,
    }
}

#[test]
fn abi_version_mismatch_is_refused_before_the_entry_is_called() {
    let library = raw_library("wrong_version");
    let error = load_error(&library);
    assert_eq!(
        error.to_string(),
        format!(
            "{}: plugin ABI version 2 is not supported (this host speaks version 1)",
            library.display()
        )
    );
}

#[test]
fn a_short_table_is_refused() {
    let library = raw_library("short_table");
    let message = load_error(&library).to_string();
    assert!(
        message.starts_with(&library.display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("plugin table is too short: size 8 bytes"),
        "{message}"
    );
}

#[test]
fn a_library_without_the_entry_symbol_is_not_a_plugin() {
    let library = raw_library("no_entry");
    let message = load_error(&library).to_string();
    assert!(
        message.contains("not a hooks plugin: symbol `hermes_hooks_plugin_v1` not found"),
        "{message}"
    );
}

#[test]
fn garbage_library_paths_give_clear_errors() {
    let home = Home::new();
    let missing = home.path().join("libmissing.so");
    assert_eq!(
        load_error(&missing),
        LoadError::NotFound {
            library: missing.clone()
        }
    );
    let garbage = home.path().join("libgarbage.so");
    std::fs::write(&garbage, "this is not an ELF file").expect("write garbage");
    let message = load_error(&garbage).to_string();
    assert!(
        message.starts_with(&format!("{}: cannot load library: ", garbage.display())),
        "{message}"
    );
    let directory = home.path().to_owned();
    assert!(matches!(load_error(&directory), LoadError::Open { .. }));
}

#[test]
fn discovery_reports_a_bad_library_against_its_manifest() {
    let home = Home::new();
    let dir = home.plugin("old-abi", &[]);
    let library = raw_library("wrong_version");
    std::fs::write(
        dir.join("plugin.yaml"),
        format!("library: {}\n", library.display()),
    )
    .expect("write manifest");
    let garbage = home.plugin(
        "garbage",
        &[
            ("plugin.yaml", "library: libjunk.so\n"),
            ("libjunk.so", "junk"),
        ],
    );
    home.example_plugin("example", "");
    let discovery = discover_with(
        home.path(),
        &home.config("plugins: {enabled: [old-abi, garbage, example]}"),
        DiscoverOptions::default(),
    );
    assert_eq!(discovery.plugins.len(), 1);
    assert_eq!(discovery.warnings.len(), 2, "{:?}", discovery.warnings);
    let garbage_warning = &discovery.warnings[0];
    assert_eq!(garbage_warning.file, garbage.join("plugin.yaml"));
    assert!(
        garbage_warning
            .message
            .starts_with("plugin 'garbage' not loaded: ")
    );
    let abi_warning = &discovery.warnings[1];
    assert_eq!(
        (abi_warning.file.clone(), abi_warning.key.as_str()),
        (dir.join("plugin.yaml"), "library")
    );
    assert!(
        abi_warning
            .message
            .contains("ABI version 2 is not supported")
    );
    let status = discovery
        .found
        .iter()
        .find(|info| info.key == "old-abi")
        .map(|i| &i.status);
    assert!(
        matches!(status, Some(PluginStatus::Failed(reason)) if reason.contains("ABI version 2"))
    );
}

#[test]
fn unknown_hook_names_warn_but_are_kept() {
    let home = Home::new();
    let dir = home.plugin("banana", &[]);
    let library = raw_library("unknown_hook");
    std::fs::write(
        dir.join("plugin.yaml"),
        format!("library: {}\n", library.display()),
    )
    .expect("write manifest");
    let discovery = discover_with(
        home.path(),
        &home.config("plugins: {enabled: [banana]}"),
        DiscoverOptions::default(),
    );
    assert_eq!(discovery.plugins.len(), 1);
    let plugin = &discovery.plugins[0];
    assert_eq!(plugin.hooks(), ["on_banana", "pre_tool_call"]);
    assert_eq!(plugin.unknown_hooks().collect::<Vec<_>>(), ["on_banana"]);
    assert_eq!(discovery.warnings.len(), 1);
    let message = &discovery.warnings[0].message;
    assert!(
        message.contains("registered unknown hook 'on_banana'"),
        "{message}"
    );
    // It still answers (with no reply) for both names.
    let event = hermes_hooks_core::Event::from_json("on_banana", serde_json::json!({}));
    assert_eq!(plugin.call(&event), Ok(None));
}
