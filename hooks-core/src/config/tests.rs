//! config.yaml loading: keys, defaults, warnings, and hermes-agent's
//! `${VAR}` and managed-scope semantics.

use super::*;

fn config(text: &str) -> Config {
    match Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), text) {
        Ok(config) => config,
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn callback_timeout_rules() {
    let timeout = |text: &str| config(text).plugin_settings().0.callback_timeout;
    assert_eq!(timeout(""), Some(Duration::from_secs(30)));
    assert_eq!(timeout("plugins: {hook_callback_timeout: 0}"), None);
    assert_eq!(
        timeout("plugins: {hook_callback_timeout: 0.12}"),
        Some(Duration::from_millis(120))
    );
    assert_eq!(
        timeout("plugins: {hook_callback_timeout: 9999}"),
        Some(Duration::from_secs(600))
    );
    assert_eq!(
        timeout("plugins: {hook_callback_timeout: -1}"),
        Some(Duration::from_secs(30))
    );
    assert_eq!(
        timeout("plugins: {hook_callback_timeout: soon}"),
        Some(Duration::from_secs(30))
    );
    let (_, warnings) = config("plugins: {hook_callback_timeout: soon}").plugin_settings();
    assert!(warnings[0].message.contains("not a number"));
    assert!(warnings[0].to_string().starts_with("/h/config.yaml: "));
}

#[test]
fn auto_accept_matrix() {
    for (text, expected) in [
        ("hooks_auto_accept: true", true),
        ("hooks_auto_accept: false", false),
        ("hooks_auto_accept: 'false'", false),
        ("hooks_auto_accept: 'no'", false),
        ("hooks_auto_accept: 'true'", true),
        ("hooks_auto_accept: '  TRUE  '", true),
        ("hooks_auto_accept: 'yes'", true),
        ("hooks_auto_accept: 'on'", true),
        ("hooks_auto_accept: '1'", true),
        ("hooks_auto_accept: 1", false),
        // YAML 1.1 booleans, as PyYAML reads them.
        ("hooks_auto_accept: yes", true),
        ("hooks_auto_accept: On", true),
        ("hooks_auto_accept: off", false),
        ("hooks_auto_accept: NO", false),
        ("hooks_auto_accept: null", false),
        ("other: 1", false),
    ] {
        assert_eq!(config(text).hooks_auto_accept(), expected, "{text}");
    }
}

#[test]
fn bad_files_name_the_file() {
    let error = Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), "- a\n- b\n").err();
    assert!(error.is_some_and(|e| e.to_string().contains("/h/config.yaml")));
    let error = Config::parse(Path::new("/h"), Path::new("/h/config.yaml"), "a: [").err();
    assert!(error.is_some_and(|e| e.to_string().contains("invalid YAML")));
}

#[test]
fn one_odd_key_does_not_lose_the_file() {
    // PyYAML reads each of these; each used to make the whole file unreadable.
    for odd in [
        "model:\n  provider: a\n  provider: b\n",
        "model:\n  max: 123456789012345678901234567890\n",
        "model:\n  temp: !!float '1e400'\n",
    ] {
        let config = config(&format!("{odd}hooks_auto_accept: yes\n"));
        assert!(config.hooks_auto_accept(), "{odd}");
    }
    assert_eq!(
        config("model:\n  provider: a\n  provider: b\n").get("model.provider"),
        Some(&Value::String("b".into()))
    );
}

#[test]
fn oversized_files_are_refused_by_size() {
    let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
    let body = format!("a: 1\n{}", "#".repeat(crate::yaml::MAX_BYTES));
    std::fs::write(dir.path().join(CONFIG_FILE), body).unwrap_or_else(|error| panic!("{error}"));
    let error = Config::load(dir.path())
        .err()
        .map(|error| error.to_string());
    assert!(
        error.as_deref().is_some_and(|e| e.contains("bytes")),
        "{error:?}"
    );
}

#[test]
fn dotted_get() {
    let config = config("hooks:\n  outbound: []\n");
    assert_eq!(config.get("hooks.outbound"), Some(&Value::Array(vec![])));
    assert_eq!(config.get("hooks.missing"), None);
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|error| panic!("{error}"));
    }
    std::fs::write(path, text).unwrap_or_else(|error| panic!("{error}"));
}

/// A home and a managed dir in one temp dir, and an environment naming it.
struct Scopes {
    _dir: tempfile::TempDir,
    home: PathBuf,
    managed: PathBuf,
}

impl Scopes {
    fn new(user: Option<&str>, managed: Option<&str>) -> Scopes {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("{error}"));
        let home = dir.path().join("home");
        let managed_dir = dir.path().join("managed");
        std::fs::create_dir_all(&home).unwrap_or_else(|error| panic!("{error}"));
        std::fs::create_dir_all(&managed_dir).unwrap_or_else(|error| panic!("{error}"));
        if let Some(text) = user {
            write(&home.join(CONFIG_FILE), text);
        }
        if let Some(text) = managed {
            write(&managed_dir.join(CONFIG_FILE), text);
        }
        Scopes {
            _dir: dir,
            home,
            managed: managed_dir,
        }
    }

    fn env(&self, extra: &[(&str, &str)]) -> ConfigEnv {
        let mut vars: Vec<(String, String)> = vec![(
            scope::MANAGED_DIR_ENV.to_owned(),
            self.managed.display().to_string(),
        )];
        vars.extend(
            extra
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        ConfigEnv::from_vars(vars)
    }

    fn load(&self, extra: &[(&str, &str)]) -> Config {
        Config::load_in(&self.home, &self.env(extra)).unwrap_or_else(|error| panic!("{error}"))
    }
}

#[test]
fn env_vars_expand_in_string_values_as_hermes_does() {
    let scopes = Scopes::new(
        Some(concat!(
            "hooks:\n  pre_tool_call:\n    - command: ${GUARD_DIR}/guard.sh\n",
            "      matcher: '${UNSET_VAR}'\n",
            "${GUARD_DIR}: key\n",
            "list: [\"${A}${B}\", '${}', '$A', 7, '${A']\n",
        )),
        None,
    );
    let config = scopes.load(&[("GUARD_DIR", "/opt/guard"), ("A", "1"), ("B", "2")]);
    assert_eq!(
        config
            .get("hooks.pre_tool_call")
            .and_then(|v| v[0]["command"].as_str()),
        Some("/opt/guard/guard.sh")
    );
    // Unset stays verbatim; keys are not expanded; only `${...}` forms.
    assert_eq!(
        config
            .get("hooks.pre_tool_call")
            .and_then(|v| v[0]["matcher"].as_str()),
        Some("${UNSET_VAR}")
    );
    assert_eq!(
        config.get("${GUARD_DIR}"),
        Some(&Value::String("key".into()))
    );
    assert_eq!(
        config.get("list"),
        Some(&serde_json::json!(["12", "${}", "$A", 7, "${A"]))
    );
}

#[test]
fn the_managed_scope_wins_leaf_by_leaf() {
    let scopes = Scopes::new(
        Some(concat!(
            "hooks_auto_accept: true\n",
            "hooks:\n  pre_tool_call:\n    - command: ./mine.sh\n",
            "  post_tool_call:\n    - command: ./log.sh\n",
            "plugins:\n  hook_callback_timeout: 5\n",
        )),
        Some(concat!(
            "hooks_auto_accept: false\n",
            "hooks:\n  pre_tool_call:\n    - command: ${GUARD_DIR}/guard.sh\n      fail_closed: true\n",
            "plugins: ~\n",
        )),
    );
    let config = scopes.load(&[("GUARD_DIR", "/opt/g")]);
    assert!(!config.hooks_auto_accept());
    // A list is replaced whole; sibling keys stay the user's.
    assert_eq!(
        config.get("hooks.pre_tool_call"),
        Some(&serde_json::json!([{"command": "/opt/g/guard.sh", "fail_closed": true}]))
    );
    assert_eq!(
        config.get("hooks.post_tool_call"),
        Some(&serde_json::json!([{"command": "./log.sh"}]))
    );
    // A null over a mapping is ignored.
    assert_eq!(
        config.plugin_settings().0.callback_timeout,
        Some(Duration::from_secs(5))
    );
    assert_eq!(config.scope_of("hooks.pre_tool_call[0]"), Scope::Managed);
    assert_eq!(config.scope_of("hooks.post_tool_call[0]"), Scope::User);
    assert_eq!(config.scope_of("hooks_auto_accept"), Scope::Managed);
    assert_eq!(
        config.scope_of("plugins.hook_callback_timeout"),
        Scope::User
    );
    let managed_file = scopes.managed.join(CONFIG_FILE);
    assert_eq!(config.managed_path(), Some(managed_file.as_path()));
    // Warnings name the file the key came from.
    assert_eq!(
        config.warning("hooks.pre_tool_call[0].timeout", "x").file,
        managed_file
    );
    assert_eq!(
        config.warning("hooks.post_tool_call[0]", "x").file,
        scopes.home.join(CONFIG_FILE)
    );
}

#[test]
fn a_managed_scope_applies_without_a_user_file() {
    let scopes = Scopes::new(
        None,
        Some("hooks:\n  on_session_start:\n    - command: ./a.sh\n"),
    );
    let config = scopes.load(&[]);
    assert_eq!(config.scope_of("hooks.on_session_start"), Scope::Managed);
    assert!(config.get("hooks.on_session_start").is_some());
}

#[test]
fn a_broken_managed_file_is_ignored_loudly() {
    for text in ["hooks: [", "- a\n- b\n"] {
        let scopes = Scopes::new(Some("hooks_auto_accept: true\n"), Some(text));
        let config = scopes.load(&[]);
        assert!(config.hooks_auto_accept(), "{text}");
        assert_eq!(config.managed_path(), None);
        let warnings = config.load_warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].message.contains("IGNORING"), "{warnings:?}");
        assert_eq!(warnings[0].file, scopes.managed.join(CONFIG_FILE));
    }
}

#[test]
fn the_managed_dir_is_injectable_and_never_falls_back() {
    let scopes = Scopes::new(Some("a: 1\n"), Some("a: 2\n"));
    let padded = format!("  {}\n", scopes.managed.display());
    let config = Config::load_in(
        &scopes.home,
        &ConfigEnv::from_vars([(scope::MANAGED_DIR_ENV, padded.as_str())]),
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(config.get("a"), Some(&Value::from(2)));
    // Set to a missing directory: no managed scope at all (not /etc/hermes).
    let env = ConfigEnv::from_vars([(scope::MANAGED_DIR_ENV, "/nonexistent/managed")]);
    assert_eq!(env.managed_dir(), None);
    let config = Config::load_in(&scopes.home, &env).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(config.get("a"), Some(&Value::from(1)));
    assert_eq!(config.scope_of("a"), Scope::User);
    // ... and said (R39-5): the administrator's guards are not applied.
    let warnings = config.load_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .message
            .contains("HERMES_MANAGED_DIR=/nonexistent/managed does not exist"),
        "{warnings:?}"
    );
}

/// The same homes through hermes-agent's own `load_config`, when installed.
#[test]
fn load_config_agrees_with_hermes_agent() {
    let Some(python) = test_support::reference::python() else {
        return;
    };
    let cases: &[(Option<&str>, Option<&str>)] = &[
        (
            Some(
                "hooks_auto_accept: true\nhooks:\n  pre_tool_call:\n    - command: ./mine.sh\n  post_tool_call:\n    - command: ${GUARD_DIR}/log.sh\nplugins:\n  hook_callback_timeout: 5\n",
            ),
            Some(
                "hooks_auto_accept: false\nhooks:\n  pre_tool_call:\n    - command: ${GUARD_DIR}/guard.sh\n      fail_closed: true\nplugins: ~\n",
            ),
        ),
        (
            None,
            Some("hooks:\n  on_session_start: [{command: '${NOPE}/x ${GUARD_DIR}'}]\n"),
        ),
        (
            Some("hooks:\n  pre_tool_call: [{command: a}]\nextra: {deep: {a: 1, b: [1, 2]}}\n"),
            Some("hooks: {pre_tool_call: ~}\nextra: {deep: {b: ${GUARD_DIR}, c: 3}}\n"),
        ),
        (
            Some("hooks: ~\nx: '${A}${GUARD_DIR}'\n"),
            Some("hooks: {post_tool_call: [{command: b}]}\n"),
        ),
        (Some("hooks: {}\n"), Some("")),
        (Some("a: 1\n"), None),
    ];
    let script = "import json, sys\nfrom hermes_cli.config import load_config\nc = load_config()\nprint(json.dumps({k: c.get(k) for k in sys.argv[1:]}))\n";
    for (user, managed) in cases {
        let scopes = Scopes::new(*user, *managed);
        let env = [("GUARD_DIR", "/opt/g"), ("A", "${GUARD_DIR}")];
        let ours = scopes.load(&env);
        let keys: Vec<String> = ours
            .root()
            .as_object()
            .map(|map| map.keys().cloned().collect())
            .unwrap_or_default();
        let output = std::process::Command::new(&python)
            .arg("-c")
            .arg(script)
            .args(&keys)
            .env("HERMES_HOME", &scopes.home)
            .env(scope::MANAGED_DIR_ENV, &scopes.managed)
            .envs(env)
            .output()
            .unwrap_or_else(|error| panic!("{error}"));
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let theirs: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|error| panic!("{error}: {}", String::from_utf8_lossy(&output.stdout)));
        for key in &keys {
            assert_eq!(
                ours.get(key),
                theirs.get(key),
                "{key} in {user:?} / {managed:?}"
            );
        }
    }
}

#[test]
fn an_alias_bomb_loads_with_a_warning_naming_the_file() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..10 {
        let refs = vec![format!("*a{}", level - 1); 10].join(", ");
        text.push_str(&format!("a{level}: &a{level} [{refs}]\n"));
    }
    text.push_str("hooks_auto_accept: true\n");
    let config = config(&text);
    assert!(config.hooks_auto_accept());
    let warnings = config.load_warnings();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].message.contains("not expanded"), "{warnings:?}");
    assert_eq!(warnings[0].file, Path::new("/h/config.yaml"));
}
