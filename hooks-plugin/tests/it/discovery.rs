//! Discovery in temporary Hermes homes: opt-in, disabled, safe mode, Python
//! folders, broken manifests and load order.

use hermes_hooks_core::{Event, HookEvent};
use hermes_hooks_plugin::{DiscoverOptions, Discovery, PluginStatus, discover, discover_with};
use serde_json::json;

use crate::support::Home;

fn run(home: &Home, config_yaml: &str) -> Discovery {
    discover_with(
        home.path(),
        &home.config(config_yaml),
        DiscoverOptions::default(),
    )
}

fn loaded_keys(discovery: &Discovery) -> Vec<&str> {
    discovery
        .plugins
        .iter()
        .map(|plugin| plugin.key())
        .collect()
}

fn status_of<'a>(discovery: &'a Discovery, key: &str) -> Option<&'a PluginStatus> {
    discovery
        .found
        .iter()
        .find(|info| info.key == key)
        .map(|info| &info.status)
}

#[test]
fn an_enabled_plugin_loads_and_answers() {
    let home = Home::new();
    let dir = home.example_plugin("example", "description: the fixture\n");
    let discovery = run(&home, "plugins: {enabled: [example]}");
    assert!(discovery.warnings.is_empty(), "{:?}", discovery.warnings);
    assert_eq!(loaded_keys(&discovery), ["example"]);
    let info = &discovery.found[0];
    assert_eq!(
        (info.key.as_str(), info.name.as_str(), info.version.as_str()),
        ("example", "example", "1.0")
    );
    assert_eq!(info.description, "the fixture");
    assert_eq!(info.dir, dir);
    assert!(
        info.library
            .as_ref()
            .is_some_and(|lib| lib.starts_with(&dir))
    );
    assert!(info.enabled);
    assert_eq!(info.status, PluginStatus::Loaded);
    assert_eq!(info.hooks, ["pre_tool_call"]);

    let plugin = &discovery.plugins[0];
    assert_eq!(plugin.name(), "example");
    assert_eq!(plugin.declared_name(), "plugin-guard");
    let event = Event::from_json(
        HookEvent::PreToolCall,
        json!({"tool_name": "terminal", "args": {"command": "rm -rf /tmp/x"}}),
    );
    let reply = plugin.call(&event).ok().flatten();
    assert_eq!(reply.map(|r| r["action"].clone()), Some(json!("block")));
}

#[test]
fn plugins_are_opt_in() {
    let home = Home::new();
    home.example_plugin("example", "");
    for config in [
        "",
        "plugins: {}",
        "plugins: {enabled: []}",
        "plugins: {enabled: [other]}",
    ] {
        let discovery = run(&home, config);
        assert!(discovery.plugins.is_empty(), "{config}");
        assert_eq!(
            status_of(&discovery, "example"),
            Some(&PluginStatus::NotEnabled),
            "{config}"
        );
        assert!(!discovery.found[0].enabled);
    }
}

#[test]
fn disabled_always_wins_by_key_or_name() {
    let home = Home::new();
    home.example_plugin("example", "");
    for disabled in ["example", "[example]"] {
        let config = format!("plugins: {{enabled: [example], disabled: {disabled}}}");
        let discovery = run(&home, &config);
        if disabled.starts_with('[') {
            assert!(discovery.plugins.is_empty());
            assert_eq!(
                status_of(&discovery, "example"),
                Some(&PluginStatus::Disabled)
            );
            assert!(!discovery.found[0].enabled);
        } else {
            // A scalar `disabled` is a config mistake: warned about, ignored.
            assert_eq!(loaded_keys(&discovery), ["example"]);
            assert_eq!(discovery.warnings[0].key, "plugins.disabled");
        }
    }
}

#[test]
fn enabled_may_name_the_manifest_name() {
    let home = Home::new();
    let dir = home.example_plugin("folder-key", "");
    let yaml = std::fs::read_to_string(dir.join("plugin.yaml")).unwrap_or_default();
    std::fs::write(
        dir.join("plugin.yaml"),
        yaml.replace("name: folder-key", "name: Pretty"),
    )
    .expect("rewrite manifest");
    let discovery = run(&home, "plugins: {enabled: [Pretty]}");
    assert_eq!(loaded_keys(&discovery), ["folder-key"]);
    assert_eq!(discovery.plugins[0].name(), "Pretty");
}

#[test]
fn safe_mode_loads_nothing_but_lists_everything() {
    let home = Home::new();
    home.example_plugin("example", "");
    let discovery = discover_with(
        home.path(),
        &home.config("plugins: {enabled: [example]}"),
        DiscoverOptions::default().with_safe_mode(true),
    );
    assert!(discovery.plugins.is_empty());
    assert_eq!(
        status_of(&discovery, "example"),
        Some(&PluginStatus::SafeMode)
    );
    assert!(discovery.found[0].enabled);
}

#[test]
fn discover_reads_safe_mode_from_the_environment() {
    let home = Home::new();
    home.example_plugin("example", "");
    let discovery = discover(home.path(), &home.config("plugins: {enabled: [example]}"));
    let expected = if DiscoverOptions::from_env().safe_mode {
        0
    } else {
        1
    };
    assert_eq!(discovery.plugins.len(), expected);
}

#[test]
fn python_and_native_plugins_share_one_load_order() {
    if !crate::python::python_available() {
        return;
    }
    let home = Home::new();
    // `zz-python` requires `example`; `aa-python` requires `zz-python`.
    home.plugin(
        "aa-python",
        &[
            ("plugin.yaml", "name: aa-python\nrequires_plugins: [zz-python]\n"),
            ("__init__.py", "def register(ctx):\n    ctx.register_hook('on_session_start', lambda **kw: None)\n"),
        ],
    );
    home.plugin(
        "zz-python",
        &[
            (
                "plugin.yaml",
                "name: zz-python\nrequires_plugins: [example]\n",
            ),
            ("__init__.py", "def register(ctx): pass\n"),
        ],
    );
    home.example_plugin("example", "");
    let discovery = run(&home, "plugins: {enabled: [aa-python, zz-python, example]}");
    assert!(discovery.warnings.is_empty(), "{:?}", discovery.warnings);
    assert_eq!(discovery.load_order, ["example", "zz-python", "aa-python"]);
    assert_eq!(loaded_keys(&discovery), ["example"]);
    assert_eq!(
        status_of(&discovery, "aa-python"),
        Some(&PluginStatus::Loaded)
    );
    let info = discovery.info("aa-python").expect("listed");
    assert_eq!(info.kind, hermes_hooks_plugin::PluginKind::Python);
    assert_eq!(info.hooks, ["on_session_start"]);
    assert!(discovery.interpreter.is_some());
}

#[test]
fn broken_manifests_warn_and_the_rest_still_loads() {
    let home = Home::new();
    let bad_yaml = home.plugin("bad-yaml", &[("plugin.yaml", "name: [unclosed\n")]);
    let no_library = home.plugin("no-library", &[("plugin.yaml", "name: no-library\n")]);
    let wrong_type = home.plugin("wrong-type", &[("plugin.yaml", "library: [a, b]\n")]);
    let missing = home.plugin(
        "missing-lib",
        &[("plugin.yaml", "library: libnothere.so\n")],
    );
    home.plugin("not-a-plugin", &[("README", "no manifest here")]);
    home.example_plugin("example", "");
    let discovery = run(
        &home,
        "plugins: {enabled: [bad-yaml, no-library, wrong-type, missing-lib, example]}",
    );
    assert_eq!(loaded_keys(&discovery), ["example"]);
    let keys: Vec<&str> = discovery
        .found
        .iter()
        .map(|info| info.key.as_str())
        .collect();
    assert_eq!(
        keys,
        [
            "bad-yaml",
            "example",
            "missing-lib",
            "no-library",
            "wrong-type"
        ]
    );
    let problems: Vec<(std::path::PathBuf, &str)> = discovery
        .warnings
        .iter()
        .map(|w| (w.file.clone(), w.key.as_str()))
        .collect();
    assert_eq!(
        problems,
        [
            (bad_yaml.join("plugin.yaml"), ""),
            (no_library.join("plugin.yaml"), "library"),
            (wrong_type.join("plugin.yaml"), "library"),
            (wrong_type.join("plugin.yaml"), "library"),
            (missing.join("plugin.yaml"), "library"),
        ]
    );
    assert!(discovery.warnings[0].message.starts_with("invalid YAML"));
    assert!(
        discovery.warnings[2]
            .message
            .contains("must be a string; got list")
    );
    assert!(
        discovery.warnings[4]
            .message
            .contains("libnothere.so: library not found")
    );
    assert!(matches!(
        status_of(&discovery, "missing-lib"),
        Some(PluginStatus::Failed(_))
    ));
    assert!(matches!(
        status_of(&discovery, "bad-yaml"),
        Some(PluginStatus::Invalid(_))
    ));
}

#[test]
fn load_order_follows_requires_plugins() {
    let home = Home::new();
    home.example_plugin("aaa", "requires_plugins: [ccc]\n");
    home.example_plugin("bbb", "");
    home.example_plugin("ccc", "requires_plugins: [{id: ddd}]\n");
    home.example_plugin("ddd", "");
    let discovery = run(&home, "plugins: {enabled: [aaa, bbb, ccc, ddd]}");
    assert!(discovery.warnings.is_empty(), "{:?}", discovery.warnings);
    // Generations, each alphabetical: [bbb, ddd], then [ccc], then [aaa].
    assert_eq!(loaded_keys(&discovery), ["bbb", "ddd", "ccc", "aaa"]);
    // A hook name shared by several plugins is credited to each of them.
    assert!(
        discovery
            .found
            .iter()
            .all(|info| info.hooks == ["pre_tool_call"])
    );
}

#[test]
fn cycles_fall_back_to_alphabetical_and_missing_deps_keep_the_dependent() {
    let home = Home::new();
    home.example_plugin("aaa", "requires_plugins: [bbb]\n");
    home.example_plugin("bbb", "requires_plugins: [aaa]\n");
    home.example_plugin("ccc", "requires_plugins: [ghost]\n");
    let discovery = run(&home, "plugins: {enabled: [aaa, bbb, ccc]}");
    assert_eq!(loaded_keys(&discovery), ["aaa", "bbb", "ccc"]);
    let messages: Vec<&str> = discovery
        .warnings
        .iter()
        .map(|w| w.message.as_str())
        .collect();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert!(messages[0].contains("requires plugin 'ghost'"));
    assert!(messages[1].contains("cycle among aaa, bbb"));
    assert!(
        discovery
            .warnings
            .iter()
            .all(|w| w.key == "requires_plugins")
    );
}

#[test]
fn a_requirement_that_is_not_enabled_counts_as_missing() {
    let home = Home::new();
    home.example_plugin("aaa", "requires_plugins: [zzz]\n");
    home.example_plugin("zzz", "");
    let discovery = run(&home, "plugins: {enabled: [aaa]}");
    assert_eq!(loaded_keys(&discovery), ["aaa"]);
    assert!(
        discovery.warnings[0]
            .message
            .contains("not enabled or installed")
    );
}

#[test]
fn category_folders_give_nested_keys() {
    let home = Home::new();
    home.example_plugin("tools/guard", "");
    let discovery = run(&home, "plugins: {enabled: [tools/guard]}");
    assert_eq!(loaded_keys(&discovery), ["tools/guard"]);
}

#[test]
fn a_home_without_plugins_finds_nothing() {
    let home = Home::new();
    let discovery = run(&home, "plugins: {}");
    assert!(discovery.found.is_empty() && discovery.plugins.is_empty());
    assert!(discovery.warnings.is_empty());
    assert!(
        discovery.interpreter.is_none(),
        "no Python started for nothing"
    );
    // An enabled name nothing answers may be pip-installed: looked up, then reported.
    let discovery = run(&home, "plugins: {enabled: [x]}");
    assert!(discovery.found.is_empty() && discovery.plugins.is_empty());
    assert_eq!(discovery.warnings.len(), 1, "{:?}", discovery.warnings);
    let message = &discovery.warnings[0].message;
    assert!(
        message.contains("plugin 'x' is enabled but not installed")
            || message.contains("cannot look for pip-installed plugins named x"),
        "{message}"
    );
}

#[test]
fn list_only_finds_everything_and_loads_nothing() {
    let home = Home::new();
    home.example_plugin("example", "");
    home.plugin(
        "py",
        &[
            ("plugin.yaml", "name: py\n"),
            ("__init__.py", "raise SystemExit(3)\n"),
        ],
    );
    home.plugin("half", &[("plugin.yaml", "name: half\n")]);
    home.plugin(
        "off",
        &[("plugin.yaml", "name: off\n"), ("__init__.py", "")],
    );
    let discovery = hermes_hooks_plugin::list_only(
        home.path(),
        &home.config("plugins: {enabled: [example, py, half]}"),
        &DiscoverOptions::default(),
    );
    assert!(discovery.plugins.is_empty() && discovery.python.is_empty());
    assert!(discovery.interpreter.is_none(), "no Python was started");
    // Would load: safe mode. Nothing to load: invalid, as the runtime says.
    assert_eq!(
        status_of(&discovery, "example"),
        Some(&PluginStatus::SafeMode)
    );
    assert_eq!(status_of(&discovery, "py"), Some(&PluginStatus::SafeMode));
    assert!(
        matches!(status_of(&discovery, "half"), Some(PluginStatus::Invalid(m)) if m.contains("neither a `library`"))
    );
    assert_eq!(
        status_of(&discovery, "off"),
        Some(&PluginStatus::NotEnabled)
    );
    let runtime = run(&home, "plugins: {enabled: [half]}");
    assert!(matches!(
        status_of(&runtime, "half"),
        Some(PluginStatus::Invalid(_))
    ));
}
