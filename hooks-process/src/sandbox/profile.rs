//! Sandbox profiles as configured (`sandbox:` on a hook or a source,
//! `hooks_sandbox:` per scope) and read from YAML/JSON values.

use std::fmt;

use serde_json::Value;

/// What a hook may read, write and reach.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Profile {
    /// No sandbox: the hook runs with every right of the user.
    #[default]
    None,
    /// Read the system, the project, the hook's own files and the home minus
    /// its secret stores; write the project and a private `/tmp`; no network.
    Project,
    /// Read the system, the hook's own files and the project; write a
    /// private `/tmp` only; no network.
    Strict,
    /// An explicit map: the system is always readable and `/tmp` private.
    Custom(CustomRules),
}

/// The explicit map `{read: [...], write: [...], network: bool}`; paths may
/// use `~` and `${VAR}` and are expanded when a hook is prepared to run.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct CustomRules {
    /// Readable paths (beside the system's).
    pub read: Vec<String>,
    /// Readable and writable paths.
    pub write: Vec<String>,
    /// Whether the hook keeps the host's network.
    pub network: bool,
}

impl CustomRules {
    /// An explicit map of readable and writable paths, and network access.
    pub fn new(read: Vec<String>, write: Vec<String>, network: bool) -> Self {
        CustomRules {
            read,
            write,
            network,
        }
    }
}

/// A profile and whether it may run weaker than asked (`best_effort`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Sandbox {
    /// What the hook may do.
    pub profile: Profile,
    /// Run with whatever this kernel offers where the profile cannot be
    /// applied whole (said in `list`), instead of blocking or skipping.
    pub best_effort: bool,
}

impl Sandbox {
    /// No sandbox (today's behaviour).
    pub const NONE: Sandbox = Sandbox {
        profile: Profile::None,
        best_effort: false,
    };

    /// `profile`, applied whole or not at all.
    pub fn new(profile: Profile) -> Self {
        Sandbox {
            profile,
            best_effort: false,
        }
    }

    /// The same profile, run with what the kernel offers where it cannot be applied whole.
    pub fn best_effort(mut self) -> Self {
        self.best_effort = true;
        self
    }

    /// Whether this is no sandbox at all.
    pub fn is_none(&self) -> bool {
        self.profile == Profile::None
    }

    /// Reads a `sandbox:` value: `none`, `project`, `strict`, `best_effort`
    /// (the project profile, best effort), `{profile: NAME, best_effort:
    /// BOOL}`, or `{read: [...], write: [...], network: BOOL, best_effort:
    /// BOOL}`. The error is a sentence for a config warning.
    pub fn from_value(value: &Value) -> Result<Sandbox, String> {
        match value {
            Value::String(name) => Sandbox::from_name(name.trim()),
            Value::Object(map) => {
                let best_effort = match map.get("best_effort") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(flag)) => *flag,
                    Some(other) => {
                        return Err(format!("best_effort must be a boolean (got {other})"));
                    }
                };
                if let Some(unknown) = map.keys().find(|key| {
                    !matches!(
                        key.as_str(),
                        "profile" | "best_effort" | "read" | "write" | "network"
                    )
                }) {
                    return Err(format!(
                        "unknown key '{unknown}' (known: profile, read, write, network, best_effort)"
                    ));
                }
                let mut sandbox = match map.get("profile") {
                    Some(Value::String(name)) => {
                        if ["read", "write", "network"]
                            .iter()
                            .any(|k| map.contains_key(*k))
                        {
                            return Err(
                                "give either profile: NAME or read/write/network, not both"
                                    .to_owned(),
                            );
                        }
                        Sandbox::from_name(name.trim())?
                    }
                    Some(other) => return Err(format!("profile must be a name (got {other})")),
                    None => Sandbox::new(Profile::Custom(CustomRules {
                        read: paths(map.get("read"), "read")?,
                        write: paths(map.get("write"), "write")?,
                        network: match map.get("network") {
                            None | Some(Value::Null) => false,
                            Some(Value::Bool(flag)) => *flag,
                            Some(other) => {
                                return Err(format!("network must be a boolean (got {other})"));
                            }
                        },
                    })),
                };
                sandbox.best_effort |= best_effort;
                Ok(sandbox)
            }
            other => Err(format!(
                "sandbox must be none, project, strict, best_effort or a map of read/write/network (got {other})"
            )),
        }
    }

    fn from_name(name: &str) -> Result<Sandbox, String> {
        match name {
            "none" => Ok(Sandbox::NONE),
            "project" => Ok(Sandbox::new(Profile::Project)),
            "strict" => Ok(Sandbox::new(Profile::Strict)),
            "best_effort" => Ok(Sandbox::new(Profile::Project).best_effort()),
            other => Err(format!(
                "unknown sandbox profile '{other}' (known: none, project, strict, best_effort)"
            )),
        }
    }

    /// The profile's name as `list` and the run record show it
    /// (`project`, `strict+best_effort`, `custom`, ...).
    pub fn name(&self) -> String {
        let base = match &self.profile {
            Profile::None => "none",
            Profile::Project => "project",
            Profile::Strict => "strict",
            Profile::Custom(_) => "custom",
        };
        if self.best_effort && !self.is_none() {
            format!("{base}+best_effort")
        } else {
            base.to_owned()
        }
    }
}

impl fmt::Display for Sandbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

fn paths(value: Option<&Value>, field: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(one)) => Ok(vec![one.clone()]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(path) if !path.trim().is_empty() => Ok(path.trim().to_owned()),
                other => Err(format!("{field} must list paths (got {other})")),
            })
            .collect(),
        Some(other) => Err(format!("{field} must be a list of paths (got {other})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_maps_are_read() {
        let read = |value: Value| Sandbox::from_value(&value);
        assert_eq!(read(json!("none")), Ok(Sandbox::NONE));
        assert_eq!(read(json!("strict")), Ok(Sandbox::new(Profile::Strict)));
        assert_eq!(
            read(json!("best_effort")),
            Ok(Sandbox::new(Profile::Project).best_effort())
        );
        assert_eq!(
            read(json!({"profile": "strict", "best_effort": true})).map(|s| s.name()),
            Ok("strict+best_effort".to_owned())
        );
        let custom = read(json!({"read": ["~/data"], "write": "${OUT}", "network": true}));
        assert_eq!(
            custom,
            Ok(Sandbox::new(Profile::Custom(CustomRules::new(
                vec!["~/data".into()],
                vec!["${OUT}".into()],
                true
            ))))
        );
    }

    #[test]
    fn mistakes_are_named() {
        let error = |value: Value| Sandbox::from_value(&value).unwrap_err();
        assert!(error(json!("projetc")).contains("unknown sandbox profile 'projetc'"));
        assert!(error(json!({"network": "no"})).contains("network must be a boolean"));
        assert!(error(json!({"reads": []})).contains("unknown key 'reads'"));
        assert!(error(json!({"profile": "strict", "read": []})).contains("not both"));
        assert!(error(json!(3)).contains("sandbox must be"));
    }
}
