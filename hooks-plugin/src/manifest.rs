//! `plugin.yaml`: reading one plugin folder's manifest.
//!
//! Every problem is a [`ConfigWarning`] naming the file and the field; a bad
//! optional field falls back to its default so the plugin is still listed.

use std::path::{Path, PathBuf};

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_core::config::json_type;
use serde_json::{Map, Value};

/// The manifest file names, in the order they are looked for.
pub const MANIFEST_FILES: [&str; 2] = ["plugin.yaml", "plugin.yml"];

/// A parsed `plugin.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Manifest {
    /// The manifest file.
    pub file: PathBuf,
    /// `name`, defaulting to the folder name.
    pub name: String,
    /// `description`, or empty.
    pub description: String,
    /// `version` (numbers are kept in their YAML spelling), or empty.
    pub version: String,
    /// `library`, `~/` expanded and resolved against the plugin folder.
    pub library: Option<PathBuf>,
    /// `requires_plugins`: keys or names of plugins to load first.
    pub requires_plugins: Vec<String>,
    /// `kind`, lower-cased (`standalone`, `backend`, `exclusive`, `platform`,
    /// `model-provider`); `None` when the manifest does not say.
    pub kind: Option<String>,
}

/// The plugin kinds the reference knows; another `kind` is read as `standalone`.
pub const PLUGIN_KINDS: [&str; 5] = [
    "standalone",
    "backend",
    "exclusive",
    "platform",
    "model-provider",
];

/// The manifest file of `dir`, if it has one.
pub fn manifest_file(dir: &Path) -> Option<PathBuf> {
    MANIFEST_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|file| file.is_file())
}

/// Reads and parses the manifest `file` of the plugin folder `dir`.
///
/// `Err` means the file is unusable (unreadable, invalid YAML, not a
/// mapping); field problems only add warnings.
pub fn read_manifest(
    dir: &Path,
    file: &Path,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<Manifest, ConfigWarning> {
    let text = hermes_hooks_core::config::read_capped(file)
        .map_err(|error| warning(file, "", format!("cannot read: {error}")))?;
    parse_manifest(dir, file, &text, warnings)
}

/// Parses manifest text as if read from `file` in the plugin folder `dir`.
pub fn parse_manifest(
    dir: &Path,
    file: &Path,
    text: &str,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<Manifest, ConfigWarning> {
    let root = hermes_hooks_yaml::parse(text)
        .map_err(|error| warning(file, "", format!("invalid YAML: {}", error.message)))?;
    let fields = match root {
        Value::Object(fields) => fields,
        // An empty file is an empty manifest, as the reference's `or {}` makes it.
        Value::Null => Map::new(),
        other => {
            return Err(warning(
                file,
                "",
                format!(
                    "the top level must be a mapping of fields; got {}",
                    json_type(&other)
                ),
            ));
        }
    };
    let folder_name = dir
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut reader = FieldReader {
        file,
        fields: &fields,
        warnings,
    };
    let name = reader
        .text("name")
        .filter(|name| !name.trim().is_empty())
        .unwrap_or(folder_name);
    let description = reader.text("description").unwrap_or_default();
    let version = reader.text("version").unwrap_or_default();
    let library = reader
        .text("library")
        .filter(|library| !library.trim().is_empty())
        .map(|library| dir.join(hermes_hooks_core::home::expand_tilde(library.trim())));
    let requires_plugins = reader.requires_plugins();
    let kind = reader.text("kind").map(|kind| {
        let kind = kind.trim().to_lowercase();
        if PLUGIN_KINDS.contains(&kind.as_str()) {
            kind
        } else {
            reader.warnings.push(warning(
                file,
                "kind",
                format!(
                    "unknown plugin kind '{kind}' (valid: {}); treated as 'standalone'",
                    PLUGIN_KINDS.join(", ")
                ),
            ));
            "standalone".to_owned()
        }
    });
    Ok(Manifest {
        file: file.to_owned(),
        name,
        description,
        version,
        library,
        requires_plugins,
        kind,
    })
}

struct FieldReader<'a> {
    file: &'a Path,
    fields: &'a Map<String, Value>,
    warnings: &'a mut Vec<ConfigWarning>,
}

impl FieldReader<'_> {
    /// A text field; numbers and booleans keep their spelling (`version: 1.2`).
    fn text(&mut self, key: &str) -> Option<String> {
        match self.fields.get(key)? {
            Value::Null => None,
            Value::String(text) => Some(text.clone()),
            Value::Number(number) => Some(number.to_string()),
            Value::Bool(flag) => Some(flag.to_string()),
            other => {
                self.warnings.push(warning(
                    self.file,
                    key,
                    format!("field `{key}` must be a string; got {}", json_type(other)),
                ));
                None
            }
        }
    }

    /// `requires_plugins`: strings, or mappings with an `id` string (the reference's shape).
    fn requires_plugins(&mut self) -> Vec<String> {
        const KEY: &str = "requires_plugins";
        let items = match self.fields.get(KEY) {
            None | Some(Value::Null) => return Vec::new(),
            Some(Value::Array(items)) => items,
            Some(other) => {
                self.warnings.push(warning(
                    self.file,
                    KEY,
                    format!("field `{KEY}` must be a list; got {}", json_type(other)),
                ));
                return Vec::new();
            }
        };
        let mut required = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let id = match item {
                Value::String(id) => Some(id.as_str()),
                Value::Object(entry) => entry.get("id").and_then(Value::as_str),
                _ => None,
            };
            match id.map(str::trim).filter(|id| !id.is_empty()) {
                Some(id) => required.push(id.to_owned()),
                None => self.warnings.push(warning(
                    self.file,
                    format!("{KEY}[{index}]"),
                    format!(
                        "field `{KEY}[{index}]` must be a plugin name or a mapping with an `id` string; ignored"
                    ),
                )),
            }
        }
        required
    }
}

/// A warning about `key` in the manifest `file`.
pub(crate) fn warning(file: &Path, key: impl Into<String>, message: String) -> ConfigWarning {
    ConfigWarning::new(file.to_owned(), key.into(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Result<Manifest, ConfigWarning>, Vec<ConfigWarning>) {
        let mut warnings = Vec::new();
        let dir = Path::new("/h/plugins/demo");
        let result = parse_manifest(dir, &dir.join("plugin.yaml"), text, &mut warnings);
        (result, warnings)
    }

    #[test]
    fn full_manifest() {
        let (manifest, warnings) = parse(
            "name: Demo\ndescription: d\nversion: 1.5\nlibrary: lib/libdemo.so\nrequires_plugins: [a, {id: b}]\n",
        );
        let manifest = manifest.expect("valid manifest");
        assert!(warnings.is_empty());
        assert_eq!(manifest.name, "Demo");
        assert_eq!(manifest.version, "1.5");
        assert_eq!(
            manifest.library,
            Some(PathBuf::from("/h/plugins/demo/lib/libdemo.so"))
        );
        assert_eq!(manifest.requires_plugins, ["a", "b"]);
        assert_eq!(manifest.kind, None);
        let (manifest, warnings) = parse("kind: Exclusive\n");
        assert_eq!(manifest.map(|m| m.kind), Ok(Some("exclusive".to_owned())));
        assert!(warnings.is_empty());
        let (manifest, warnings) = parse("kind: gadget\n");
        assert_eq!(manifest.map(|m| m.kind), Ok(Some("standalone".to_owned())));
        assert!(warnings[0].message.contains("unknown plugin kind 'gadget'"));
    }

    #[test]
    fn defaults_and_absolute_or_home_libraries() {
        let (manifest, _) = parse("library: /opt/libx.so\n");
        let manifest = manifest.expect("valid manifest");
        assert_eq!(manifest.name, "demo");
        assert_eq!(manifest.library, Some(PathBuf::from("/opt/libx.so")));
        let (manifest, _) = parse("library: ~/libs/liby.so\n");
        let library = manifest
            .expect("valid manifest")
            .library
            .unwrap_or_default();
        assert!(!library.to_string_lossy().contains('~'), "{library:?}");
        assert!(library.ends_with("libs/liby.so"));
        let (manifest, _) = parse("");
        assert_eq!(manifest.map(|m| m.library), Ok(None));
    }

    #[test]
    fn wrong_types_warn_with_file_and_field() {
        let (manifest, warnings) =
            parse("name: [x]\nlibrary: {a: 1}\nrequires_plugins: [1, {name: z}, ok]\n");
        let manifest = manifest.expect("usable manifest");
        assert_eq!(manifest.name, "demo");
        assert_eq!(manifest.library, None);
        assert_eq!(manifest.requires_plugins, ["ok"]);
        let keys: Vec<&str> = warnings.iter().map(|w| w.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "name",
                "library",
                "requires_plugins[0]",
                "requires_plugins[1]"
            ]
        );
        assert!(
            warnings[0]
                .to_string()
                .starts_with("/h/plugins/demo/plugin.yaml: field `name`")
        );
        let (_, warnings) = parse("requires_plugins: a\n");
        assert!(warnings[0].message.contains("must be a list; got string"));
    }

    #[test]
    fn unusable_files_are_errors() {
        let (result, _) = parse("name: [\n");
        assert!(result.is_err_and(|w| w.message.starts_with("invalid YAML")));
        let (result, _) = parse("- a\n");
        assert!(result.is_err_and(|w| w.message.contains("got list")));
    }
}
