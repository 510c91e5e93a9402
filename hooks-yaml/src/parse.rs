//! Tokens to a node graph, by PyYAML's grammar (its parser and composer
//! folded into one recursive descent): one document, `%TAG` handles, anchors
//! shared by reference (an alias is the same node, never a copy).

use std::collections::HashMap;
use std::rc::Rc;

use super::scan::{Mark, Style, Token};
use super::{MAX_DEPTH, YamlError};

/// The YAML core tags' prefix (the `!!` handle).
pub(super) const CORE: &str = "tag:yaml.org,2002:";

/// A mapping entry: key and value nodes.
pub(super) type Entry = (Rc<Node>, Rc<Node>);

/// A composed node. Aliased nodes are shared `Rc`s.
#[derive(Debug)]
pub(super) enum Node {
    Scalar {
        value: String,
        /// The resolved full tag (`tag:yaml.org,2002:int`, `!local`, ...).
        tag: String,
    },
    Sequence {
        items: Vec<Rc<Node>>,
    },
    Mapping {
        /// The explicit tag (`!!set` keeps keys only), if any.
        tag: Option<String>,
        entries: Vec<Entry>,
    },
}

pub(super) struct Parser {
    tokens: Vec<(Token, Mark)>,
    at: usize,
    handles: HashMap<String, String>,
    /// Finished anchored nodes; `None` while the anchored node is being built.
    anchors: HashMap<String, Option<Rc<Node>>>,
    depth: usize,
}

impl Parser {
    pub(super) fn new(tokens: Vec<(Token, Mark)>) -> Parser {
        Parser {
            tokens,
            at: 0,
            handles: HashMap::new(),
            anchors: HashMap::new(),
            depth: 0,
        }
    }

    pub(super) fn peek(&self) -> &Token {
        self.tokens
            .get(self.at)
            .map_or(&Token::StreamEnd, |(token, _)| token)
    }

    pub(super) fn mark(&self) -> Mark {
        self.tokens
            .get(self.at)
            .or_else(|| self.tokens.last())
            .map_or_else(Mark::default, |(_, mark)| *mark)
    }

    pub(super) fn next(&mut self) -> Token {
        let token = self.peek().clone();
        self.at += 1;
        token
    }

    pub(super) fn unexpected(&self, context: &str) -> YamlError {
        YamlError::at(
            self.mark(),
            format!(
                "while parsing {context}: found unexpected {}",
                name(self.peek())
            ),
        )
    }

    /// PyYAML's `safe_load`: the single document of the stream (`None` when
    /// there is none); a second document is an error.
    pub(super) fn single_document(mut self) -> Result<Option<Rc<Node>>, YamlError> {
        let document = self.document()?;
        if document.is_some() && !matches!(self.document_start()?, Start::End) {
            return Err(YamlError::at(
                self.mark(),
                "expected a single document in the stream, but found another document",
            ));
        }
        Ok(document)
    }

    fn document(&mut self) -> Result<Option<Rc<Node>>, YamlError> {
        let implicit = !matches!(
            self.peek(),
            Token::Directive(..) | Token::DocumentStart | Token::StreamEnd
        );
        let node = if implicit {
            self.handles = default_handles();
            self.node(true, false)?
        } else {
            match self.document_start()? {
                Start::End => return Ok(None),
                Start::Explicit => {
                    if matches!(
                        self.peek(),
                        Token::Directive(..)
                            | Token::DocumentStart
                            | Token::DocumentEnd
                            | Token::StreamEnd
                    ) {
                        empty()
                    } else {
                        self.node(true, false)?
                    }
                }
            }
        };
        if matches!(self.peek(), Token::DocumentEnd) {
            self.next();
        }
        Ok(Some(node))
    }

    /// Skips `...` markers; then either the stream ends or directives and a
    /// `---` start a document.
    fn document_start(&mut self) -> Result<Start, YamlError> {
        while matches!(self.peek(), Token::DocumentEnd) {
            self.next();
        }
        if matches!(self.peek(), Token::StreamEnd) {
            return Ok(Start::End);
        }
        self.handles.clear();
        let mut version = false;
        while let Token::Directive(name, value) = self.peek().clone() {
            let mark = self.mark();
            self.next();
            if name == "YAML" {
                if version {
                    return Err(YamlError::at(mark, "found duplicate YAML directive"));
                }
                version = true;
            } else if let Some((handle, prefix)) = value {
                if self.handles.contains_key(&handle) {
                    return Err(YamlError::at(
                        mark,
                        format!("duplicate tag handle {handle:?}"),
                    ));
                }
                self.handles.insert(handle, prefix);
            }
        }
        for (handle, prefix) in default_handles() {
            self.handles.entry(handle).or_insert(prefix);
        }
        if !matches!(self.peek(), Token::DocumentStart) {
            return Err(YamlError::at(
                self.mark(),
                format!(
                    "expected '<document start>', but found {}",
                    name(self.peek())
                ),
            ));
        }
        self.next();
        Ok(Start::Explicit)
    }

    pub(super) fn node(&mut self, block: bool, indentless: bool) -> Result<Rc<Node>, YamlError> {
        let start = self.mark();
        if let Token::Alias(alias) = self.peek().clone() {
            self.next();
            return match self.anchors.get(&alias) {
                Some(Some(node)) => Ok(Rc::clone(node)),
                Some(None) => Err(YamlError::at(
                    start,
                    format!(
                        "alias *{alias} refers to the node that contains it (a recursive structure)"
                    ),
                )),
                None => Err(YamlError::at(
                    start,
                    format!("found undefined alias {alias:?}"),
                )),
            };
        }
        let (anchor, tag) = self.properties()?;
        if let Some(anchor) = &anchor {
            if self.anchors.contains_key(anchor) {
                return Err(YamlError::at(
                    start,
                    format!("found duplicate anchor {anchor:?}"),
                ));
            }
            self.anchors.insert(anchor.clone(), None);
        }
        let node = self.content(block, indentless, tag, start, anchor.is_some())?;
        if let Some(anchor) = anchor {
            self.anchors.insert(anchor, Some(Rc::clone(&node)));
        }
        Ok(node)
    }

    /// An anchor and a tag, in either order; the tag with its handle resolved.
    fn properties(&mut self) -> Result<(Option<String>, Option<String>), YamlError> {
        let mut anchor = None;
        let mut tag = None;
        for _ in 0..2 {
            match self.peek().clone() {
                Token::Anchor(name) if anchor.is_none() => {
                    self.next();
                    anchor = Some(name);
                }
                Token::Tag(handle, suffix) if tag.is_none() => {
                    let mark = self.mark();
                    self.next();
                    tag = Some(match handle {
                        None => suffix,
                        Some(handle) => match self.handles.get(&handle) {
                            Some(prefix) => format!("{prefix}{suffix}"),
                            None => {
                                return Err(YamlError::at(
                                    mark,
                                    format!("found undefined tag handle {handle:?}"),
                                ));
                            }
                        },
                    });
                }
                _ => break,
            }
        }
        Ok((anchor, tag))
    }

    fn content(
        &mut self,
        block: bool,
        indentless: bool,
        tag: Option<String>,
        start: Mark,
        has_anchor: bool,
    ) -> Result<Rc<Node>, YamlError> {
        let collection_tag = tag.clone().filter(|tag| tag != "!");
        let node = match self.peek().clone() {
            Token::BlockEntry if indentless => {
                self.enter(start)?;
                let items = self.indentless_sequence()?;
                self.depth -= 1;
                Node::Sequence { items }
            }
            Token::Scalar(value, style) => {
                self.next();
                let tag = match tag {
                    Some(tag) if tag != "!" => tag,
                    Some(_) => super::resolve::implicit_tag(&value).to_owned(),
                    None if style == Style::Plain => {
                        super::resolve::implicit_tag(&value).to_owned()
                    }
                    None => format!("{CORE}str"),
                };
                Node::Scalar { value, tag }
            }
            Token::FlowSequenceStart => {
                self.enter(start)?;
                self.next();
                let items = self.flow_sequence()?;
                self.depth -= 1;
                Node::Sequence { items }
            }
            Token::FlowMappingStart => {
                self.enter(start)?;
                self.next();
                let entries = self.flow_mapping()?;
                self.depth -= 1;
                Node::Mapping {
                    tag: collection_tag,
                    entries,
                }
            }
            Token::BlockSequenceStart if block => {
                self.enter(start)?;
                self.next();
                let items = self.block_sequence()?;
                self.depth -= 1;
                Node::Sequence { items }
            }
            Token::BlockMappingStart if block => {
                self.enter(start)?;
                self.next();
                let entries = self.block_mapping()?;
                self.depth -= 1;
                Node::Mapping {
                    tag: collection_tag,
                    entries,
                }
            }
            _ if has_anchor || tag.is_some() => {
                // Properties with no content: an empty scalar.
                let tag = match tag {
                    Some(tag) if tag != "!" => tag,
                    _ => super::resolve::implicit_tag("").to_owned(),
                };
                Node::Scalar {
                    value: String::new(),
                    tag,
                }
            }
            _ => {
                let kind = if block { "a block node" } else { "a flow node" };
                return Err(YamlError::at(
                    self.mark(),
                    format!(
                        "while parsing {kind}: expected the node content, but found {}",
                        name(self.peek())
                    ),
                ));
            }
        };
        Ok(Rc::new(node))
    }

    fn enter(&mut self, mark: Mark) -> Result<(), YamlError> {
        if self.depth >= MAX_DEPTH {
            return Err(YamlError::at(
                mark,
                format!("nesting deeper than {MAX_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn block_sequence(&mut self) -> Result<Vec<Rc<Node>>, YamlError> {
        let mut items = Vec::new();
        while matches!(self.peek(), Token::BlockEntry) {
            self.next();
            if matches!(self.peek(), Token::BlockEntry | Token::BlockEnd) {
                items.push(empty());
            } else {
                items.push(self.node(true, false)?);
            }
        }
        if !matches!(self.peek(), Token::BlockEnd) {
            return Err(self.unexpected("a block collection (expected <block end>)"));
        }
        self.next();
        Ok(items)
    }

    fn indentless_sequence(&mut self) -> Result<Vec<Rc<Node>>, YamlError> {
        let mut items = Vec::new();
        while matches!(self.peek(), Token::BlockEntry) {
            self.next();
            if matches!(
                self.peek(),
                Token::BlockEntry | Token::Key | Token::Value | Token::BlockEnd
            ) {
                items.push(empty());
            } else {
                items.push(self.node(true, false)?);
            }
        }
        Ok(items)
    }

    fn block_mapping(&mut self) -> Result<Vec<Entry>, YamlError> {
        let mut entries = Vec::new();
        loop {
            let key = match self.peek() {
                Token::Key => {
                    self.next();
                    if matches!(self.peek(), Token::Key | Token::Value | Token::BlockEnd) {
                        empty()
                    } else {
                        self.node(true, true)?
                    }
                }
                Token::BlockEnd => {
                    self.next();
                    return Ok(entries);
                }
                _ => return Err(self.unexpected("a block mapping (expected <block end>)")),
            };
            let value = if matches!(self.peek(), Token::Value) {
                self.next();
                if matches!(self.peek(), Token::Key | Token::Value | Token::BlockEnd) {
                    empty()
                } else {
                    self.node(true, true)?
                }
            } else {
                empty()
            };
            entries.push((key, value));
        }
    }
}

enum Start {
    End,
    Explicit,
}

fn default_handles() -> HashMap<String, String> {
    HashMap::from([
        ("!".to_owned(), "!".to_owned()),
        ("!!".to_owned(), CORE.to_owned()),
    ])
}

/// An empty plain scalar (PyYAML's `process_empty_scalar`): null.
pub(super) fn empty() -> Rc<Node> {
    Rc::new(Node::Scalar {
        value: String::new(),
        tag: super::resolve::implicit_tag("").to_owned(),
    })
}

fn name(token: &Token) -> &'static str {
    match token {
        Token::StreamEnd => "<stream end>",
        Token::Directive(..) => "<directive>",
        Token::DocumentStart => "<document start>",
        Token::DocumentEnd => "<document end>",
        Token::BlockSequenceStart => "<block sequence start>",
        Token::BlockMappingStart => "<block mapping start>",
        Token::BlockEnd => "<block end>",
        Token::FlowSequenceStart => "'['",
        Token::FlowSequenceEnd => "']'",
        Token::FlowMappingStart => "'{'",
        Token::FlowMappingEnd => "'}'",
        Token::BlockEntry => "'-'",
        Token::FlowEntry => "','",
        Token::Key => "'?'",
        Token::Value => "':'",
        Token::Alias(_) => "<alias>",
        Token::Anchor(_) => "<anchor>",
        Token::Tag(..) => "<tag>",
        Token::Scalar(..) => "<scalar>",
    }
}
