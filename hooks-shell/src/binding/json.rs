//! A [`Binding`] as the allowlist records it (and `list --json` shows it).

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::{Binding, TreeDigest, path_map};

impl Binding {
    /// The JSON recorded in the allowlist (and shown by `list --json`).
    pub fn to_json(&self) -> Value {
        let files: Map<String, Value> = self
            .files
            .iter()
            .map(|(path, hash)| (path.display().to_string(), Value::from(hash.as_str())))
            .collect();
        let mut value = json!({
            "project": self.project.as_ref().map(|p| p.display().to_string()),
            "files": files,
        });
        if let Some(tree) = &self.tree {
            value["tree"] = json!({
                "roots": tree.roots.iter().map(|r| r.display().to_string()).collect::<Vec<_>>(),
                "sha256": tree.sha256,
            });
            if !tree.by_metadata.is_empty() {
                value["tree"]["bound_by_metadata"] = json!(
                    tree.by_metadata
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                );
            }
        }
        if let Some(request) = &self.request {
            value["request"] = request.clone();
        }
        if !self.env.is_empty() {
            value["env"] = json!(self.env);
        }
        if !self.definitions.is_empty() {
            let definitions: Map<String, Value> = self
                .definitions
                .iter()
                .map(|(path, hash)| (path.display().to_string(), Value::from(hash.as_str())))
                .collect();
            value["definitions"] = Value::Object(definitions);
        }
        if !self.mentioned.is_empty() {
            value["mentioned"] = Value::Object(path_map(&self.mentioned));
        }
        if let Some(source) = &self.source {
            value["source"] = Value::from(source.display().to_string());
        }
        value
    }

    /// Reads a recorded binding; `None` when it is not one.
    pub fn from_json(value: &Value) -> Option<Binding> {
        let object = value.as_object()?;
        let project = match object.get("project") {
            None | Some(Value::Null) => None,
            Some(Value::String(path)) => Some(PathBuf::from(path)),
            Some(_) => return None,
        };
        let mut files = BTreeMap::new();
        if let Some(map) = object.get("files") {
            for (path, hash) in map.as_object()? {
                files.insert(PathBuf::from(path), hash.as_str()?.to_owned());
            }
        }
        let tree = match object.get("tree") {
            None | Some(Value::Null) => None,
            Some(tree) => Some(TreeDigest {
                roots: tree
                    .get("roots")?
                    .as_array()?
                    .iter()
                    .map(|r| r.as_str().map(PathBuf::from))
                    .collect::<Option<_>>()?,
                sha256: tree.get("sha256")?.as_str()?.to_owned(),
                by_metadata: match tree.get("bound_by_metadata") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(paths) => paths
                        .as_array()?
                        .iter()
                        .map(|p| p.as_str().map(PathBuf::from))
                        .collect::<Option<_>>()?,
                },
            }),
        };
        let request = object.get("request").filter(|r| !r.is_null()).cloned();
        let mut env = BTreeMap::new();
        if let Some(map) = object.get("env").filter(|e| !e.is_null()) {
            for (name, hash) in map.as_object()? {
                env.insert(name.clone(), hash.as_str()?.to_owned());
            }
        }
        let mut definitions = BTreeMap::new();
        if let Some(map) = object.get("definitions").filter(|d| !d.is_null()) {
            for (path, hash) in map.as_object()? {
                definitions.insert(PathBuf::from(path), hash.as_str()?.to_owned());
            }
        }
        let mut mentioned = BTreeMap::new();
        if let Some(map) = object.get("mentioned").filter(|d| !d.is_null()) {
            for (path, hash) in map.as_object()? {
                mentioned.insert(PathBuf::from(path), hash.as_str()?.to_owned());
            }
        }
        let source = match object.get("source") {
            None | Some(Value::Null) => None,
            Some(Value::String(path)) => Some(PathBuf::from(path)),
            Some(_) => return None,
        };
        Some(Binding {
            source,
            mentioned,
            project,
            files,
            tree,
            request,
            env,
            definitions,
        })
    }
}
