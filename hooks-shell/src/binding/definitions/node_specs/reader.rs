//! The reading of Node code's words into [`Value`]s (red team round 55,
//! H55-9): its tokens, an expression's operators, calls, members and
//! indexes, and the values the code gives a name ([`names`]). What the
//! reading cannot follow is unknown, with whether the folder the code
//! runs in went into it.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::LazyLock;

use regex::Regex;

use super::values::{self, Object, Value};

mod names;

/// How many names deep a value is read.
const MAX_DEPTH: usize = 4;

/// The most names read for one expression.
const MAX_READINGS: usize = 256;

/// Node code as tokens, and where each name is.
pub(super) struct Code<'a> {
    /// The code.
    pub(super) text: &'a str,
    /// Its tokens, blanks and comments left out.
    pub(super) tokens: Vec<&'a str>,
    /// Where each token starts in `text`.
    pub(super) starts: Vec<usize>,
    /// The places of each name among `tokens`.
    places: HashMap<&'a str, Vec<usize>>,
    /// How the code gives each name read so far a value.
    givings: RefCell<HashMap<&'a str, Rc<[names::Giving]>>>,
}

impl<'a> Code<'a> {
    /// `text` read into tokens.
    pub(super) fn new(text: &'a str) -> Code<'a> {
        static TOKEN: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r#"//[^\n]*|/\*(?s:.*?)\*/|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`|[A-Za-z_$][\w$]*|[0-9][\w.]*|\s+|===|!==|\|\|=|&&=|\?\?=|[-+*/%|&]=|\+\+|--|==|!=|<=|>=|\|\||&&|\?\?|\?\.|=>|\.\.\.|."#)
                .expect("valid regex")
        });
        let mut code = Code {
            text,
            tokens: Vec::new(),
            starts: Vec::new(),
            places: HashMap::new(),
            givings: RefCell::new(HashMap::new()),
        };
        for token in TOKEN.find_iter(text) {
            let word = token.as_str();
            if word.trim().is_empty() || word.starts_with("//") || word.starts_with("/*") {
                continue;
            }
            if is_name(word) {
                code.places.entry(word).or_default().push(code.tokens.len());
            }
            code.tokens.push(word);
            code.starts.push(token.start());
        }
        code
    }

    /// The token at `at`, if any.
    pub(super) fn at(&self, at: usize) -> Option<&'a str> {
        self.tokens.get(at).copied()
    }

    /// The places of the name `name`.
    pub(super) fn places(&self, name: &str) -> &[usize] {
        self.places.get(name).map_or(&[], Vec::as_slice)
    }

    /// How the code gives the name `name` a value, at each place it does
    /// ([`names::giving`]), read once.
    fn givings(&self, name: &'a str) -> Rc<[names::Giving]> {
        if let Some(known) = self.givings.borrow().get(name) {
            return Rc::clone(known);
        }
        let found: Rc<[names::Giving]> = self
            .places(name)
            .iter()
            .filter_map(|&at| names::giving(self, at))
            .collect();
        self.givings.borrow_mut().insert(name, Rc::clone(&found));
        found
    }

    /// The value of the tokens from `start` to `end`: unknown, with
    /// whether they name the folder the code runs in, when no reading
    /// takes them whole.
    pub(super) fn value(&self, start: usize, end: usize) -> Value {
        let readings = Cell::new(MAX_READINGS);
        let mut reader = Reader {
            code: self,
            tokens: &self.tokens,
            at: start,
            end,
            depth: 0,
            readings: &readings,
        };
        match reader.expression() {
            Some(value) if reader.at == end => value,
            _ => Value::Unknown(names_here(&self.tokens[start..end.min(self.tokens.len())])),
        }
    }
}

/// Whether `tokens` name the folder the code runs in.
pub(super) fn names_here(tokens: &[&str]) -> bool {
    tokens.iter().any(|token| {
        matches!(*token, "cwd" | "PWD" | "INIT_CWD" | "createRequire")
            || token.ends_with("PROJECT_DIR")
    })
}

/// Whether `token` is a name.
pub(super) fn is_name(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$')
}

/// What `require(name)` gives for Node's own module `name`.
pub(super) fn module_named(name: &str) -> Value {
    match name.strip_prefix("node:").unwrap_or(name) {
        "path" | "path/posix" | "path/win32" => Value::Object(Object::Path),
        "module" => Value::Object(Object::Module),
        "url" => Value::Object(Object::Url),
        "os" => Value::Object(Object::Os),
        "process" => Value::Object(Object::Process),
        "worker_threads" => Value::Object(Object::WorkerThreads),
        _ => Value::Unknown(false),
    }
}

/// A reading of the tokens `tokens` from `at` to `end`.
struct Reader<'r, 'a> {
    code: &'r Code<'a>,
    tokens: &'r [&'a str],
    at: usize,
    end: usize,
    depth: usize,
    readings: &'r Cell<usize>,
}

impl<'a> Reader<'_, 'a> {
    fn peek(&self) -> Option<&'a str> {
        (self.at < self.end).then(|| self.tokens.get(self.at).copied())?
    }

    fn next(&mut self) -> Option<&'a str> {
        let token = self.peek()?;
        self.at += 1;
        Some(token)
    }

    fn expect(&mut self, token: &str) -> Option<()> {
        (self.next()? == token).then_some(())
    }

    /// An expression: alternatives (`a || b`, `c ? a : b`).
    fn expression(&mut self) -> Option<Value> {
        let mut value = self.additive()?;
        while let Some(token) = self.peek() {
            match token {
                "||" | "??" | "&&" => {
                    self.at += 1;
                    value = values::either(vec![value, self.additive()?]);
                }
                "===" | "!==" | "==" | "!=" | "<" | ">" | "<=" | ">=" | "instanceof" | "in" => {
                    self.at += 1;
                    self.additive()?;
                    value = Value::Unknown(false);
                }
                "?" => {
                    self.at += 1;
                    let yes = self.expression()?;
                    self.expect(":")?;
                    return Some(values::either(vec![yes, self.expression()?]));
                }
                _ => break,
            }
        }
        Some(value)
    }

    /// Terms joined by `+` (and other arithmetic).
    fn additive(&mut self) -> Option<Value> {
        let mut value = self.unary()?;
        while let Some(token) = self.peek() {
            match token {
                "+" => {
                    self.at += 1;
                    value = values::pairs(&value, &self.unary()?, values::concat);
                }
                "-" | "*" | "/" | "%" => {
                    self.at += 1;
                    value = Value::Unknown(value.here() || self.unary()?.here());
                }
                _ => break,
            }
        }
        Some(value)
    }

    /// A term, perhaps after `await`, `!`, `new`.
    fn unary(&mut self) -> Option<Value> {
        match self.peek()? {
            "await" => {
                self.at += 1;
                self.unary()
            }
            "!" | "typeof" | "void" | "-" | "+" => {
                self.at += 1;
                Some(Value::Unknown(self.unary()?.here()))
            }
            "new" => {
                self.at += 1;
                let mut callee = self.primary()?;
                while self.peek() == Some(".") {
                    self.at += 1;
                    let name = self.next().filter(|name| is_name(name))?;
                    callee = values::member(&callee, name);
                }
                let args = match self.peek() == Some("(") {
                    true => {
                        self.at += 1;
                        self.items(")")?
                    }
                    false => Vec::new(),
                };
                let made = values::each(&callee, |callee| values::call(callee, &args));
                self.after(made)
            }
            _ => {
                let value = self.primary()?;
                self.after(value)
            }
        }
    }

    /// What follows a term: `.name`, `.name(…)`, `[key]`, `(…)`.
    fn after(&mut self, mut value: Value) -> Option<Value> {
        loop {
            match self.peek() {
                Some("." | "?.") => {
                    self.at += 1;
                    let name = self.next().filter(|name| is_name(name))?;
                    value = match self.peek() == Some("(") {
                        true => {
                            self.at += 1;
                            let args = self.items(")")?;
                            values::each(&value, |value| values::method(value, name, &args))
                        }
                        false => values::each(&value, |value| values::member(value, name)),
                    };
                }
                Some("[") => {
                    self.at += 1;
                    let key = self.expression()?;
                    self.expect("]")?;
                    value = values::index(&value, &key);
                }
                Some("(") => {
                    self.at += 1;
                    let args = self.items(")")?;
                    value = values::each(&value, |callee| values::call(callee, &args));
                }
                _ => return Some(value),
            }
        }
    }

    /// A text, a template, a number, a name, a group, a list, an object.
    fn primary(&mut self) -> Option<Value> {
        let token = self.next()?;
        match token {
            "(" => {
                let mut value = self.expression()?;
                while self.peek() == Some(",") {
                    self.at += 1;
                    value = self.expression()?;
                }
                self.expect(")")?;
                Some(value)
            }
            "[" => Some(Value::List(self.items("]")?)),
            "{" => self.object(),
            _ if token.starts_with(['"', '\'']) => Some(text(quoted(token))),
            _ if token.starts_with('`') => self.template(quoted(token)),
            _ if token.starts_with(|c: char| c.is_ascii_digit()) => {
                Some(Value::Text(token.to_owned()))
            }
            _ if is_name(token) => Some(self.name(token)),
            _ => None,
        }
    }

    /// Expressions parted by `,` up to `close` (a spread's unknown).
    fn items(&mut self, close: &str) -> Option<Vec<Value>> {
        let mut items = Vec::new();
        loop {
            if self.peek()? == close {
                self.at += 1;
                return Some(items);
            }
            let spread = self.peek() == Some("...");
            self.at += usize::from(spread);
            let item = self.expression()?;
            items.push(match spread {
                true => Value::Unknown(item.here()),
                false => item,
            });
            match self.next()? {
                "," => {}
                token if token == close => return Some(items),
                _ => return None,
            }
        }
    }

    /// An object written out: unknown, with whether a value is of here.
    fn object(&mut self) -> Option<Value> {
        let mut here = false;
        loop {
            let key = self.next()?;
            let value = match key {
                "}" => return Some(Value::Unknown(here)),
                "..." => self.expression()?,
                "[" => {
                    self.expression()?;
                    self.expect("]")?;
                    self.expect(":")?;
                    self.expression()?
                }
                _ if self.peek() == Some(":") => {
                    self.at += 1;
                    self.expression()?
                }
                _ if is_name(key) => self.name(key),
                _ => return None,
            };
            here |= value.here();
            match self.next()? {
                "," => {}
                "}" => return Some(Value::Unknown(here)),
                _ => return None,
            }
        }
    }

    /// A template's text and `${…}` pieces joined in order.
    fn template(&mut self, body: &'a str) -> Option<Value> {
        let mut value = Value::Text(String::new());
        let mut rest = body;
        while let Some(at) = rest.find("${") {
            value = values::pairs(&value, &text(&rest[..at]), values::concat);
            let inside = &rest[at + 2..];
            let end = closing(inside)?;
            let code = Code::new(&inside[..end]);
            let mut reader = Reader {
                code: self.code,
                tokens: &code.tokens,
                at: 0,
                end: code.tokens.len(),
                depth: self.depth,
                readings: self.readings,
            };
            let piece = match reader.expression() {
                Some(piece) if reader.at == reader.end => piece,
                _ => Value::Unknown(names_here(&code.tokens)),
            };
            value = values::pairs(&value, &piece, values::concat);
            rest = &inside[end + 1..];
        }
        Some(values::pairs(&value, &text(rest), values::concat))
    }
}

/// A string's body: its text, unknown when it escapes a character.
fn text(body: &str) -> Value {
    if !body.contains('\\') {
        return Value::Text(body.to_owned());
    }
    // Python's `\N{NAME}` is no escape of Node's (`N{…}` as written).
    if body.contains("\\N") {
        return Value::Unknown(false);
    }
    // Escapes as Node reads them (`"/\x6cib/x.js"` names `lib/x.js`: R8-10).
    use crate::binding::mentions::literals::{Flavor, escape};
    let chars: Vec<char> = body.chars().collect();
    let mut decoded = String::with_capacity(body.len());
    let mut at = 0;
    while at < chars.len() {
        if chars[at] != '\\' {
            decoded.push(chars[at]);
            at += 1;
            continue;
        }
        let (what, taken) = escape(&chars, at + 1, Flavor::Literal);
        if taken == 0 {
            return Value::Unknown(false);
        }
        decoded.push_str(&what);
        at += 1 + taken;
    }
    Value::Text(decoded)
}

/// Where the `}` closing a template's `${` is in `inside`.
fn closing(inside: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (at, c) in inside.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') if depth == 0 => return Some(at),
            (None, '}') => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The text inside a quoted token: an unterminated one (the code's last
/// token) holds what follows its quote.
fn quoted(token: &str) -> &str {
    let closed = token.len() > 1 && token.ends_with(&token[..1]);
    let end = if closed { token.len() - 1 } else { token.len() };
    token.get(1..end).unwrap_or_default()
}
