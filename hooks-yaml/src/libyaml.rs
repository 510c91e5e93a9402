//! The libyaml back end under evaluation (feature `libyaml-safer`): the
//! events of `libyaml-safer` (libyaml, the scanner and parser of PyYAML's
//! `CSafeLoader`, in safe Rust) composed into the same node graph
//! `parse.rs` builds, then resolved and constructed by this crate's own
//! resolver and constructor. Only the comparison tests and the bench use it.

use std::collections::HashMap;
use std::rc::Rc;

use libyaml_safer::{Event, EventData, Parser, ScalarStyle};

use super::parse::{CORE, Entry, Node};
use super::{Document, MAX_DEPTH, YamlError, construct, resolve};

/// [`super::parse_document`] on libyaml's events. A panic inside
/// libyaml-safer (it has `panic!`s on some inputs) becomes an error.
pub fn parse_document_libyaml(text: &str) -> Result<Document, YamlError> {
    super::check_size(text)?;
    super::check_printable(text)?;
    let root = std::panic::catch_unwind(|| compose(text)).unwrap_or_else(|_| {
        Err(YamlError {
            message: "libyaml-safer panicked".to_owned(),
            line: None,
            column: None,
        })
    })?;
    let Some(root) = root else {
        return Ok(Document {
            value: serde_json::Value::Null,
            unexpanded_aliases: 0,
        });
    };
    let mut constructor = construct::Constructor::new();
    let value = constructor.value(&root);
    Ok(Document {
        value,
        unexpanded_aliases: constructor.cut,
    })
}

fn compose(text: &str) -> Result<Option<Rc<Node>>, YamlError> {
    let mut bytes = text.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut bytes);
    let mut composer = Composer {
        parser,
        anchors: HashMap::new(),
        depth: 0,
    };
    composer.single_document()
}

struct Composer<'r, 'b> {
    parser: Parser<&'b mut &'r [u8]>,
    anchors: HashMap<String, Option<Rc<Node>>>,
    depth: usize,
}

fn error(error: &libyaml_safer::Error) -> YamlError {
    let what = match error.context() {
        Some(context) => format!("{context}: {}", error.problem()),
        None => error.problem().to_owned(),
    };
    match error.problem_mark() {
        Some(mark) => at(mark, what),
        None => YamlError {
            message: what,
            line: None,
            column: None,
        },
    }
}

fn at(mark: libyaml_safer::Mark, what: impl Into<String>) -> YamlError {
    let line = usize::try_from(mark.line)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    let column = usize::try_from(mark.column)
        .unwrap_or(usize::MAX)
        .saturating_add(1);
    YamlError {
        message: format!("{} at line {line} column {column}", what.into()),
        line: Some(line),
        column: Some(column),
    }
}

impl Composer<'_, '_> {
    fn next(&mut self) -> Result<Event, YamlError> {
        self.parser.parse().map_err(|e| error(&e))
    }

    fn single_document(&mut self) -> Result<Option<Rc<Node>>, YamlError> {
        // StreamStart, then a DocumentStart or the StreamEnd.
        self.next()?;
        let event = self.next()?;
        if matches!(event.data, EventData::StreamEnd) {
            return Ok(None);
        }
        let first = self.next()?;
        let root = self.node(first)?;
        self.next()?; // DocumentEnd
        let after = self.next()?;
        if !matches!(after.data, EventData::StreamEnd) {
            return Err(at(
                after.start_mark,
                "expected a single document in the stream, but found another document",
            ));
        }
        Ok(Some(root))
    }

    fn remember(
        &mut self,
        anchor: Option<&String>,
        mark: libyaml_safer::Mark,
    ) -> Result<(), YamlError> {
        if let Some(anchor) = anchor {
            if self.anchors.contains_key(anchor) {
                return Err(at(mark, format!("found duplicate anchor {anchor:?}")));
            }
            self.anchors.insert(anchor.clone(), None);
        }
        Ok(())
    }

    fn enter(&mut self, mark: libyaml_safer::Mark) -> Result<(), YamlError> {
        if self.depth >= MAX_DEPTH {
            return Err(at(mark, format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        self.depth += 1;
        Ok(())
    }

    fn node(&mut self, event: Event) -> Result<Rc<Node>, YamlError> {
        let mark = event.start_mark;
        let (anchor, node) = match event.data {
            EventData::Alias { anchor } => {
                return match self.anchors.get(&anchor) {
                    Some(Some(node)) => Ok(Rc::clone(node)),
                    Some(None) => Err(at(
                        mark,
                        format!(
                            "alias *{anchor} refers to the node that contains it (a recursive structure)"
                        ),
                    )),
                    None => Err(at(mark, format!("found undefined alias {anchor:?}"))),
                };
            }
            EventData::Scalar {
                anchor,
                tag,
                value,
                style,
                ..
            } => {
                self.remember(anchor.as_ref(), mark)?;
                let tag = match tag {
                    Some(tag) if tag != "!" => tag,
                    Some(_) => resolve::implicit_tag(&value).to_owned(),
                    None if style == ScalarStyle::Plain => resolve::implicit_tag(&value).to_owned(),
                    None => format!("{CORE}str"),
                };
                (anchor, Rc::new(Node::Scalar { value, tag }))
            }
            EventData::SequenceStart { anchor, .. } => {
                self.remember(anchor.as_ref(), mark)?;
                self.enter(mark)?;
                let mut items = Vec::new();
                loop {
                    let event = self.next()?;
                    if matches!(event.data, EventData::SequenceEnd) {
                        break;
                    }
                    items.push(self.node(event)?);
                }
                self.depth -= 1;
                (anchor, Rc::new(Node::Sequence { items }))
            }
            EventData::MappingStart { anchor, tag, .. } => {
                self.remember(anchor.as_ref(), mark)?;
                self.enter(mark)?;
                let mut entries: Vec<Entry> = Vec::new();
                loop {
                    let event = self.next()?;
                    if matches!(event.data, EventData::MappingEnd) {
                        break;
                    }
                    let key = self.node(event)?;
                    let value = self.next()?;
                    let value = self.node(value)?;
                    entries.push((key, value));
                }
                self.depth -= 1;
                let tag = tag.filter(|tag| tag != "!");
                (anchor, Rc::new(Node::Mapping { tag, entries }))
            }
            other => {
                return Err(at(mark, format!("unexpected event {other:?}")));
            }
        };
        if let Some(anchor) = anchor {
            self.anchors.insert(anchor, Some(Rc::clone(&node)));
        }
        Ok(node)
    }
}

#[cfg(test)]
mod tests {
    /// Broken documents: both back ends must name a line and a column.
    const BROKEN: &[&str] = &[
        "a: [1, 2",
        "a: {b: 1",
        "a: 'open",
        "a: \"open",
        "a:\n  b: 1\n c: 2\n",
        "a: b: c\n",
        "- a\nb: 1\n",
        "key: |\n\tx\n",
        "a: *nope\n",
        "a: &x 1\nb: &x 2\n",
        "--- 1\n--- 2\n",
        "a: !!int\n  - 1\n  - [\n",
        "hooks:\n  pre_tool_call:\n    - command: ./a.sh\n     matcher: x\n",
        "%FOO bar\n--- 1\n",
        "a: @b\n",
        "a: `b\n",
        "a:\n\t- b\n",
        "[!foo,bar]",
    ];

    #[test]
    fn errors_name_line_and_column_on_both_back_ends() {
        for doc in BROKEN {
            let ours = super::super::parse(doc);
            let theirs = super::parse_document_libyaml(doc).map(|document| document.value);
            eprintln!("{doc:?}\n  ours:    {ours:?}\n  libyaml: {theirs:?}");
            if let Err(error) = &ours {
                assert!(
                    error.line.is_some() && error.column.is_some(),
                    "{doc:?}: {error}"
                );
            }
        }
    }
}
