//! Reading `config.yaml` text: capped, never blocking, a dangling link
//! told apart from a missing file, and the load warnings of the text itself
//! (aliases left unexpanded, keys given twice).

use std::path::Path;

use super::ConfigWarning;

/// The warning for a file whose aliases repeat more than the expansion budget.
pub(super) fn unexpanded_warning(path: &Path, count: usize) -> ConfigWarning {
    ConfigWarning {
        file: path.to_owned(),
        key: String::new(),
        message: format!(
            "{count} alias uses repeat more of the file than {} nodes / {} bytes of copies; \
             they were not expanded, and a key that needs one is rejected",
            crate::yaml::MAX_ALIAS_NODES,
            crate::yaml::MAX_ALIAS_BYTES
        ),
    }
}

/// The warnings for keys a file gives twice: the earlier value is not read.
pub(super) fn duplicate_warnings<'a>(
    path: &'a Path,
    keys: &'a [String],
) -> impl Iterator<Item = ConfigWarning> + 'a {
    keys.iter().map(|key| ConfigWarning {
        file: path.to_owned(),
        key: key.clone(),
        message: format!(
            "the key {key} is given more than once in one mapping; only the last is read"
        ),
    })
}

/// The warning for a file whose whole document is an explicit null (`null`,
/// `~`): it holds no settings. An empty file, or one of comments only, is
/// simply empty and gets none.
pub(super) fn null_document_warning(path: &Path, text: &str) -> Option<ConfigWarning> {
    let content = text
        .lines()
        .map(str::trim)
        .any(|line| !line.is_empty() && !line.starts_with('#') && !matches!(line, "---" | "..."));
    content.then(|| ConfigWarning {
        file: path.to_owned(),
        key: String::new(),
        message: "the whole file is null: it holds no settings".to_owned(),
    })
}

/// Why `path`, not found, cannot be read as absent: it is a link whose
/// target does not exist (a dotfiles manager's link left behind).
pub(super) fn dangling(path: &Path) -> Option<std::io::Error> {
    let target = std::fs::read_link(path).ok()?;
    Some(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!(
            "it is a link to {}, which does not exist",
            crate::display::escape(&target.display().to_string())
        ),
    ))
}

/// Reads a YAML file, stopping one byte past the adapter's limit (the parser
/// then refuses it by size). Anything but a regular file (a FIFO, a link to
/// `/dev/stdin`) is an error, never a read that blocks.
pub fn read_capped(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let limit = u64::try_from(crate::yaml::MAX_BYTES).unwrap_or(u64::MAX);
    let mut text = String::new();
    crate::regular_file::open_regular(path)?
        .take(limit.saturating_add(1))
        .read_to_string(&mut text)?;
    Ok(text)
}
