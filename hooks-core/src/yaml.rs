//! The one place YAML is parsed. Everything else sees `serde_json::Value`, so
//! the YAML parser can be swapped here alone.
//!
//! Hermes reads the same files with PyYAML's `safe_load` (YAML 1.1), so this
//! adapter reads them the same way: `yes`/`on`/`off` are booleans, a duplicate
//! key keeps its last value, `<<` merges. Values JSON cannot hold (an integer
//! past 64 bits, an infinite float) are kept as a float or as their text, so
//! the reader of that one key rejects them and the rest of the file is used.
//! Depth, size and alias expansion are bounded so hostile input fails fast.

mod resolve;
#[cfg(test)]
mod tests;

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Value};

/// The largest document read, in bytes.
pub const MAX_BYTES: usize = 8 * 1024 * 1024;

/// The deepest nesting of mappings and sequences accepted.
pub const MAX_DEPTH: usize = 200;

/// The most nodes a document may expand to, aliases included (a "billion
/// laughs" document is refused instead of filling memory).
pub const MAX_NODES: usize = 1_000_000;

/// A YAML document that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct YamlError {
    /// What is wrong, with line and column when known.
    pub message: String,
    /// 1-based line of the error, when known.
    pub line: Option<usize>,
    /// 1-based column of the error, when known.
    pub column: Option<usize>,
}

impl YamlError {
    fn at(span: Span, what: impl Into<String>) -> YamlError {
        let (line, column) = (span.start.line(), span.start.col() + 1);
        YamlError {
            message: format!("{} at line {line} column {column}", what.into()),
            line: Some(line),
            column: Some(column),
        }
    }
}

/// Parses YAML text into a JSON value (an empty document is `null`).
///
/// Mapping keys that are not strings (numbers, booleans, null) are spelled as
/// Python's `str()` spells the key PyYAML would build (`True`, `None`, `1`).
pub fn parse(text: &str) -> Result<Value, YamlError> {
    if text.len() > MAX_BYTES {
        return Err(YamlError {
            message: format!(
                "the document is {} bytes; the most accepted is {MAX_BYTES}",
                text.len()
            ),
            line: None,
            column: None,
        });
    }
    Composer::default().run(Parser::new_from_str(text))
}

/// A mapping or sequence being built.
enum Frame {
    Seq {
        anchor: usize,
        /// Nodes inside, aliases expanded.
        count: usize,
        items: Vec<Value>,
    },
    Map {
        anchor: usize,
        /// Nodes inside, aliases expanded.
        count: usize,
        /// Entries brought in by `<<` keys, applied before the own entries.
        merged: Vec<(String, Value)>,
        own: Vec<(String, Value)>,
        /// The key waiting for its value; `Merge` for a `<<` key.
        key: Option<Key>,
    },
}

enum Key {
    Text(String),
    Merge,
}

#[derive(Default)]
struct Composer {
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Value, usize)>,
    nodes: usize,
    documents: usize,
    root: Option<Value>,
}

impl Composer {
    fn run(mut self, parser: Parser<'_, saphyr_parser::StrInput<'_>>) -> Result<Value, YamlError> {
        for next in parser {
            let (event, span) = next.map_err(|error| {
                let mark = error.marker();
                YamlError {
                    message: format!(
                        "{} at line {} column {}",
                        error.info(),
                        mark.line(),
                        mark.col() + 1
                    ),
                    line: Some(mark.line()),
                    column: Some(mark.col() + 1),
                }
            })?;
            match event {
                Event::DocumentStart(_) => {
                    self.documents += 1;
                    if self.documents > 1 {
                        // PyYAML's safe_load refuses a stream of several documents too.
                        return Err(YamlError::at(
                            span,
                            "expected a single document, found a second one",
                        ));
                    }
                }
                Event::Scalar(text, style, anchor, tag) => {
                    let value = scalar(&text, style, tag.as_deref());
                    let is_merge = style == ScalarStyle::Plain && tag.is_none() && text == "<<";
                    self.spend(1, span)?;
                    self.node(value, anchor, 1, is_merge);
                }
                Event::Alias(id) => {
                    let Some(count) = self.anchors.get(&id).map(|(_, count)| *count) else {
                        return Err(YamlError::at(span, "unknown alias"));
                    };
                    // Counted before the copy is made, so a bomb never allocates.
                    self.spend(count, span)?;
                    let value = self.anchors.get(&id).map(|(value, _)| value.clone());
                    let value = value.unwrap_or_default();
                    self.node(value, 0, count, false);
                }
                Event::SequenceStart(anchor, _) => {
                    self.open(span)?;
                    self.stack.push(Frame::Seq {
                        anchor,
                        count: 0,
                        items: Vec::new(),
                    });
                }
                Event::MappingStart(anchor, _) => {
                    self.open(span)?;
                    self.stack.push(Frame::Map {
                        anchor,
                        count: 0,
                        merged: Vec::new(),
                        own: Vec::new(),
                        key: None,
                    });
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let (value, anchor, count) = match self.stack.pop() {
                        Some(Frame::Seq {
                            anchor,
                            count,
                            items,
                        }) => (Value::Array(items), anchor, count),
                        Some(Frame::Map {
                            anchor,
                            count,
                            merged,
                            own,
                            ..
                        }) => {
                            // A later key replaces an earlier one in place, as in a
                            // Python dict; own keys override merged ones.
                            let mut map = Map::new();
                            for (key, value) in merged.into_iter().chain(own) {
                                map.insert(key, value);
                            }
                            (Value::Object(map), anchor, count)
                        }
                        None => return Err(YamlError::at(span, "unbalanced collection end")),
                    };
                    self.spend(1, span)?;
                    self.node(value, anchor, count.saturating_add(1), false);
                }
                Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
            }
        }
        Ok(self.root.unwrap_or(Value::Null))
    }

    fn open(&mut self, span: Span) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(YamlError::at(
                span,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    /// Counts `fresh` new nodes against [`MAX_NODES`].
    fn spend(&mut self, fresh: usize, span: Span) -> Result<(), YamlError> {
        self.nodes = self.nodes.saturating_add(fresh);
        if self.nodes > MAX_NODES {
            return Err(YamlError::at(
                span,
                format!("the document expands to more than {MAX_NODES} nodes (aliases included)"),
            ));
        }
        Ok(())
    }

    /// Places a finished node (`count` nodes once expanded) in its parent.
    fn node(&mut self, value: Value, anchor: usize, count: usize, is_merge_key: bool) {
        if let Some(Frame::Seq { count: parent, .. } | Frame::Map { count: parent, .. }) =
            self.stack.last_mut()
        {
            *parent = parent.saturating_add(count);
        }
        if anchor != 0 {
            self.anchors.insert(anchor, (value.clone(), count));
        }
        match self.stack.last_mut() {
            None => self.root = Some(value),
            Some(Frame::Seq { items, .. }) => items.push(value),
            Some(Frame::Map {
                merged, own, key, ..
            }) => match key.take() {
                None if is_merge_key => *key = Some(Key::Merge),
                None => *key = Some(Key::Text(key_of(value))),
                Some(Key::Text(name)) => own.push((name, value)),
                Some(Key::Merge) => merge_into(merged, value),
            },
        }
    }
}

/// PyYAML's `flatten_mapping`: `<<: *a` or `<<: [*a, *b]`; of several
/// mappings the earlier one wins. A value that is not a mapping is ignored
/// (PyYAML refuses the whole file; one odd key should not turn hooks off).
fn merge_into(merged: &mut Vec<(String, Value)>, value: Value) {
    let maps = match value {
        Value::Object(map) => vec![map],
        Value::Array(items) => items
            .into_iter()
            .filter_map(|item| match item {
                Value::Object(map) => Some(map),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    for map in maps.into_iter().rev() {
        merged.extend(map);
    }
}

/// A key as the string JSON needs: scalars as Python's `str()`, a mapping or
/// sequence used as a key as its JSON text.
fn key_of(value: Value) -> String {
    match value {
        Value::Array(_) | Value::Object(_) => value.to_string(),
        scalar => resolve::key_text(scalar),
    }
}

fn scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Value {
    match tag {
        Some(tag) if tag.is_yaml_core_schema() => resolve::tagged(&tag.suffix, text),
        Some(_) => Value::String(text.to_owned()),
        None if style == ScalarStyle::Plain => resolve::plain(text),
        None => Value::String(text.to_owned()),
    }
}
