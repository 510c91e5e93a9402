//! `requires_plugins` in the inventory: the runtime's load-order warnings
//! for the plugins that would load (the same `load_order` function), and what
//! each trial must load with its plugin, as the runtime loads them together.

use std::path::PathBuf;

use hermes_hooks_core::ConfigWarning;
use hermes_hooks_plugin::PluginSource;
use hermes_hooks_plugin::manifest::{manifest_file, read_manifest};
use hermes_hooks_plugin::order::{OrderEntry, load_order};

use super::plugins::PluginRow;

/// Each row's `requires_plugins`, from its manifest (none for an entry point).
pub fn requirements(rows: &[PluginRow]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|row| {
            if row.source == PluginSource::EntryPoint.as_str() {
                return Vec::new();
            }
            // Its problems were reported by the listing.
            manifest_file(&row.dir)
                .and_then(|file| read_manifest(&row.dir, &file, &mut Vec::new()).ok())
                .map(|manifest| manifest.requires_plugins)
                .unwrap_or_default()
        })
        .collect()
}

/// The runtime's load-order warnings for the plugins that would load (a
/// requirement not enabled or installed, a cycle), from the same function.
pub fn order_warnings(
    rows: &[PluginRow],
    requires: &[Vec<String>],
    pending: &[usize],
    warnings: &mut Vec<ConfigWarning>,
) {
    let entries: Vec<OrderEntry> = pending
        .iter()
        .map(|&i| OrderEntry::new(&rows[i].key, &rows[i].name, requires[i].clone()))
        .collect();
    let (_, problems) = load_order(&entries);
    for problem in problems {
        let row = problem
            .key
            .as_ref()
            .and_then(|key| rows.iter().find(|row| row.key == *key));
        let file = row
            .and_then(|row| manifest_file(&row.dir))
            .unwrap_or_else(|| PathBuf::from(hermes_hooks_plugin::PLUGINS_DIR));
        warnings.push(ConfigWarning::new(
            file,
            "requires_plugins",
            problem.message,
        ));
    }
}

/// The rows (among `pending`, the plugins that would load) that `index`
/// requires, directly or through another, in the order found.
pub fn closure(
    rows: &[PluginRow],
    requires: &[Vec<String>],
    pending: &[usize],
    index: usize,
) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut todo = vec![index];
    while let Some(at) = todo.pop() {
        for required in &requires[at] {
            let found = pending
                .iter()
                .copied()
                .find(|&j| j != index && (rows[j].key == *required || rows[j].name == *required));
            if let Some(j) = found
                && !out.contains(&j)
            {
                out.push(j);
                todo.push(j);
            }
        }
    }
    out
}
