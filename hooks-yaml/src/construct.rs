//! The node graph to JSON, as PyYAML's `SafeConstructor` builds Python
//! values: tags decide the type, `<<` merges, a later duplicate key wins in
//! the first key's place (and its place in the document is noted, so a
//! reader can say the earlier value was not read).
//!
//! PyYAML shares an aliased node between its uses; JSON cannot, so every use
//! is a copy. The first use of a node is free (the text itself bounds it);
//! repeated uses spend a budget of [`MAX_ALIAS_NODES`] nodes and
//! [`MAX_ALIAS_BYTES`] bytes. A repeat that does not fit is replaced by a
//! string saying so, and the rest of the document is read: a "billion laughs"
//! file loads, in bounded memory, and the key holding the bomb is the one its
//! reader rejects.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::parse::{CORE, Node};
use super::resolve;

/// The most nodes repeated uses of aliased nodes may add, in all.
pub const MAX_ALIAS_NODES: usize = 250_000;

/// The most scalar bytes repeated uses of aliased nodes may add, in all.
pub const MAX_ALIAS_BYTES: usize = 16 * 1024 * 1024;

/// The most duplicate keys noted in one document.
pub const MAX_DUPLICATES_NOTED: usize = 64;

/// The text that stands for an alias use past the budget.
pub const NOT_EXPANDED: &str =
    "<not expanded: this alias repeats more of the document than the expansion bound allows>";

#[derive(Default)]
pub(super) struct Constructor {
    /// Nodes already built once (by address).
    seen: HashSet<*const Node>,
    /// Each shared node's expanded size (nodes, bytes), saturating.
    sizes: HashMap<*const Node, (usize, usize)>,
    nodes_left: usize,
    bytes_left: usize,
    /// How many alias uses were replaced by [`NOT_EXPANDED`].
    pub(super) cut: usize,
    /// Where the value being built sits (`hooks.pre_tool_call[0]`).
    path: String,
    /// Keys given twice in one mapping, by place: the earlier value was dropped.
    pub(super) duplicates: Vec<String>,
}

impl Constructor {
    pub(super) fn new() -> Constructor {
        Constructor {
            nodes_left: MAX_ALIAS_NODES,
            bytes_left: MAX_ALIAS_BYTES,
            ..Constructor::default()
        }
    }

    pub(super) fn value(&mut self, node: &Rc<Node>) -> Value {
        let address = Rc::as_ptr(node);
        // A node held once can only be reached once: no bookkeeping.
        if Rc::strong_count(node) > 1 && !self.seen.insert(address) {
            let (nodes, bytes) = self.size(node);
            if nodes > self.nodes_left || bytes > self.bytes_left {
                self.cut += 1;
                return Value::String(NOT_EXPANDED.to_owned());
            }
            self.nodes_left -= nodes;
            self.bytes_left -= bytes;
        }
        match &**node {
            Node::Scalar { value, tag, .. } => scalar(value, tag),
            Node::Sequence { items, .. } => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| self.within(&format!("[{index}]"), item))
                    .collect(),
            ),
            Node::Mapping { tag, .. } => {
                let set = tag.as_deref() == Some("tag:yaml.org,2002:set");
                let mut map = Map::new();
                for (key, value) in self.entries(node) {
                    // `!!set` keeps the keys only, as a Python set does.
                    let value = if set { Value::Null } else { value };
                    map.insert(key, value);
                }
                Value::Object(map)
            }
        }
    }

    /// A mapping's entries with `<<` merges applied first (PyYAML's
    /// `flatten_mapping`: of several merged mappings the earlier wins, own
    /// keys win over merged ones). A merge value that is not a mapping is
    /// skipped (PyYAML refuses the file; one odd key should not turn hooks off).
    fn entries(&mut self, node: &Rc<Node>) -> Vec<(String, Value)> {
        let Node::Mapping { entries, .. } = &**node else {
            return Vec::new();
        };
        let mut merged = Vec::new();
        let mut own = Vec::new();
        let mut names = HashSet::new();
        for (key, value) in entries {
            if matches!(&**key, Node::Scalar { tag, .. } if tag == "tag:yaml.org,2002:merge") {
                let maps: Vec<Value> = match &**value {
                    Node::Mapping { .. } => vec![self.value(value)],
                    Node::Sequence { items, .. } => items
                        .iter()
                        .filter(|item| matches!(&***item, Node::Mapping { .. }))
                        .map(|item| self.value(item))
                        .collect(),
                    Node::Scalar { .. } => Vec::new(),
                };
                for map in maps.into_iter().rev() {
                    if let Value::Object(map) = map {
                        merged.extend(map);
                    }
                }
            } else {
                let key = self.key(key);
                let step = if self.path.is_empty() {
                    key.clone()
                } else {
                    format!(".{key}")
                };
                if !names.insert(key.clone()) && self.duplicates.len() < MAX_DUPLICATES_NOTED {
                    self.duplicates.push(format!("{}{step}", self.path));
                }
                let value = self.within(&step, value);
                own.push((key, value));
            }
        }
        merged.extend(own);
        merged
    }

    /// The value of `node`, built one `step` below the current place.
    fn within(&mut self, step: &str, node: &Rc<Node>) -> Value {
        let depth = self.path.len();
        self.path.push_str(step);
        let value = self.value(node);
        self.path.truncate(depth);
        value
    }

    /// A key as the string JSON needs: a scalar as Python's `str()` spells
    /// the value PyYAML builds; a mapping or sequence as its JSON text.
    fn key(&mut self, node: &Rc<Node>) -> String {
        if let Node::Scalar { value, tag, .. } = &**node
            && tag == "tag:yaml.org,2002:float"
            && let Some(text) = resolve::nonfinite_key(value)
        {
            return text.to_owned();
        }
        if let Node::Scalar { value, tag, .. } = &**node
            && tag == "tag:yaml.org,2002:int"
            && let Some(text) = resolve::int_key(value)
        {
            return text;
        }
        match self.value(node) {
            value @ (Value::Array(_) | Value::Object(_)) => value.to_string(),
            scalar => resolve::key_text(scalar),
        }
    }

    /// The expanded size of `node`, memoized for shared nodes.
    fn size(&mut self, node: &Rc<Node>) -> (usize, usize) {
        let address = Rc::as_ptr(node);
        if let Some(size) = self.sizes.get(&address) {
            return *size;
        }
        let size = match &**node {
            Node::Scalar { value, .. } => (1, value.len()),
            Node::Sequence { items, .. } => items.iter().fold((1_usize, 0_usize), |total, item| {
                let size = self.size(item);
                (
                    total.0.saturating_add(size.0),
                    total.1.saturating_add(size.1),
                )
            }),
            Node::Mapping { entries, .. } => {
                entries.iter().fold((1_usize, 0_usize), |total, (k, v)| {
                    let (key, value) = (self.size(k), self.size(v));
                    (
                        total.0.saturating_add(key.0).saturating_add(value.0),
                        total.1.saturating_add(key.1).saturating_add(value.1),
                    )
                })
            }
        };
        if Rc::strong_count(node) > 1 {
            self.sizes.insert(address, size);
        }
        size
    }
}

/// A scalar by its resolved tag. Text a core constructor would refuse stays
/// a string, so the reader of that key rejects it and the file is still read.
fn scalar(text: &str, tag: &str) -> Value {
    match tag.strip_prefix(CORE) {
        Some("null") => Value::Null,
        Some(suffix @ ("bool" | "int" | "float")) => resolve::tagged(suffix, text),
        _ => Value::String(text.to_owned()),
    }
}
