//! Flow collections (`[...]`, `{...}`), where PyYAML ignores indentation.

use std::rc::Rc;

use super::YamlError;
use super::parse::{Entry, Node, Parser, empty};
use super::scan::Token;

impl Parser {
    pub(super) fn flow_sequence(&mut self) -> Result<Vec<Rc<Node>>, YamlError> {
        let mut items = Vec::new();
        let mut first = true;
        loop {
            if matches!(self.peek(), Token::FlowSequenceEnd) {
                self.next();
                return Ok(items);
            }
            if !first {
                if !matches!(self.peek(), Token::FlowEntry) {
                    return Err(self.unexpected("a flow sequence (expected ',' or ']')"));
                }
                self.next();
            }
            first = false;
            if matches!(self.peek(), Token::Key) {
                // `[a: 1]`, `[? a]`: a one-pair mapping.
                self.next();
                let key = if matches!(
                    self.peek(),
                    Token::Value | Token::FlowEntry | Token::FlowSequenceEnd
                ) {
                    empty()
                } else {
                    self.node(false, false)?
                };
                let value = self.flow_value(&[Token::FlowEntry, Token::FlowSequenceEnd])?;
                items.push(Rc::new(Node::Mapping {
                    tag: None,
                    entries: vec![(key, value)],
                }));
            } else if !matches!(self.peek(), Token::FlowSequenceEnd) {
                items.push(self.node(false, false)?);
            }
        }
    }

    /// The value after a flow key: `: node`, `:` alone, or nothing.
    fn flow_value(&mut self, ends: &[Token]) -> Result<Rc<Node>, YamlError> {
        if !matches!(self.peek(), Token::Value) {
            return Ok(empty());
        }
        self.next();
        if ends.contains(self.peek()) {
            Ok(empty())
        } else {
            self.node(false, false)
        }
    }

    pub(super) fn flow_mapping(&mut self) -> Result<Vec<Entry>, YamlError> {
        let mut entries = Vec::new();
        let mut first = true;
        loop {
            if matches!(self.peek(), Token::FlowMappingEnd) {
                self.next();
                return Ok(entries);
            }
            if !first {
                if !matches!(self.peek(), Token::FlowEntry) {
                    return Err(self.unexpected("a flow mapping (expected ',' or '}')"));
                }
                self.next();
            }
            first = false;
            if matches!(self.peek(), Token::Key) {
                self.next();
                let key = if matches!(
                    self.peek(),
                    Token::Value | Token::FlowEntry | Token::FlowMappingEnd
                ) {
                    empty()
                } else {
                    self.node(false, false)?
                };
                let value = self.flow_value(&[Token::FlowEntry, Token::FlowMappingEnd])?;
                entries.push((key, value));
            } else if !matches!(self.peek(), Token::FlowMappingEnd) {
                // A key alone (`{a, b: 1}`): its value is empty.
                let key = self.node(false, false)?;
                entries.push((key, empty()));
            }
        }
    }
}
