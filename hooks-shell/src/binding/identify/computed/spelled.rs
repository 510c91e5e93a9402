//! Whether the name a loader is given (`runpy.run_path(…)`,
//! `importlib.import_module(…)`, `require(…)`, `import(…)`) is spelled
//! from pieces a reading of the code's words binds (red team round 49,
//! H6, H8): string literals, the script's own place, the run folder and
//! the environment (`__file__`, `__dirname`, `os.getcwd()`), data the code
//! reads (`open('mods.txt').read().split()`, a `for` over a file's rows),
//! and names the code gives only such values; pieces joined only where a
//! path or a module name parts (`X + '/check.py'`, `f"plugins.{name}"`).
//! Anything else builds a name no reading holds: `'tools/' + chr(109) +
//! '.py'`, `'l' + 'ib'`, `''.join(…)`, `'yp.m'[::-1]`, `'%s' % x`, a text's
//! character (`s[3]`), a function's parameter.

use std::cell::Cell;
use std::sync::LazyLock;

use regex::Regex;

/// The language an expression is written in.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Syntax {
    /// Python.
    Python,
    /// JavaScript or TypeScript.
    Node,
}

/// How many names deep a value is read.
const MAX_DEPTH: usize = 4;

/// The most expressions read for one argument (names with many values,
/// each read in turn); past it the name cannot be read.
const MAX_READINGS: usize = 256;

/// Calls whose first argument names the characters they cut at or take
/// off: a letter or digit there cuts a word (`'toolsXm.py'.split('X')`).
const CUTTERS: [&str; 6] = ["split", "rsplit", "strip", "lstrip", "rstrip", "trim"];

/// A string's own methods a spelling may call: cuts at a separator.
const STRING_METHODS: [&str; 7] = [
    "split",
    "rsplit",
    "strip",
    "lstrip",
    "rstrip",
    "trim",
    "splitlines",
];

/// Calls that give text, whose characters an index takes apart.
const GIVES_TEXT: [&str; 7] = [
    "read",
    "read_text",
    "readline",
    "strip",
    "rstrip",
    "lstrip",
    "trim",
];

/// Whether `expression`, an argument of a loader in `code`, is spelled
/// from pieces a reading binds.
pub(super) fn is_spelled(expression: &str, code: &str, syntax: Syntax) -> bool {
    let readings = Cell::new(MAX_READINGS);
    shape(expression, (code, syntax), 0, &readings).is_some()
}

/// [`is_spelled`] of an expression `depth` names deep, in `code` written
/// in `syntax`, `readings` more left: its [`Shape`].
fn shape(
    expression: &str,
    (code, syntax): (&str, Syntax),
    depth: usize,
    readings: &Cell<usize>,
) -> Option<Shape> {
    readings.set(readings.get().checked_sub(1)?);
    let mut reader = Reader {
        tokens: tokens(expression, syntax),
        at: 0,
        code,
        syntax,
        depth,
        readings,
    };
    let shape = reader.expression()?;
    (reader.at == reader.tokens.len()).then_some(shape)
}

/// What an end of a spelled piece is: a path's or module's separator
/// (`/`, `.`), or anything else (a word's character, a folder, data).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Edge {
    Separator,
    Other,
}

/// The two ends of a spelled piece; an empty string has none.
#[derive(Clone, Copy, Debug)]
struct Shape {
    starts: Edge,
    ends: Edge,
    empty: bool,
}

impl Shape {
    /// A place, or data, read whole: its ends unknown.
    const PLACE: Shape = Shape {
        starts: Edge::Other,
        ends: Edge::Other,
        empty: false,
    };

    /// The ends of the text `text`.
    fn of_text(text: &str) -> Shape {
        let edge = |c: Option<char>| match c {
            Some('/' | '.') => Edge::Separator,
            _ => Edge::Other,
        };
        Shape {
            starts: edge(text.chars().next()),
            ends: edge(text.chars().last()),
            empty: text.is_empty(),
        }
    }

    /// One of `self` and `other`, either may be: the worse ends.
    fn either(self, other: Shape) -> Shape {
        let worse = |a: Edge, b: Edge| match (a, b) {
            (Edge::Separator, Edge::Separator) => Edge::Separator,
            _ => Edge::Other,
        };
        Shape {
            starts: worse(self.starts, other.starts),
            ends: worse(self.ends, other.ends),
            empty: self.empty && other.empty,
        }
    }

    /// `self` then `other` as one text; `None` where they meet other than
    /// at a separator (`'l' + 'ib'`, `dirname(__file__) + 'm.py'`).
    fn joined(self, other: Shape) -> Option<Shape> {
        if self.empty || other.empty {
            return Some(if self.empty { other } else { self });
        }
        (self.ends == Edge::Separator || other.starts == Edge::Separator).then_some(Shape {
            starts: self.starts,
            ends: other.ends,
            empty: false,
        })
    }
}

/// `expression`'s tokens, blanks left out.
fn tokens(expression: &str, syntax: Syntax) -> Vec<&str> {
    static PYTHON: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i:[rbuf]{0,2})(?:'''(?s:.*?)'''|"""(?s:.*?)"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")|[A-Za-z_][A-Za-z0-9_]*|[0-9][0-9_.A-Za-z]*|\s+|\*\*|//|===|!==|==|!=|<=|>=|:=|\|\||&&|\?\?|\?\.|=>|\.\.\.|."#)
            .expect("valid regex")
    });
    static NODE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`|[A-Za-z_$][A-Za-z0-9_$]*|[0-9][0-9_.A-Za-z]*|\s+|\*\*|//|===|!==|==|!=|<=|>=|\|\||&&|\?\?|\?\.|=>|\.\.\.|."#)
            .expect("valid regex")
    });
    let pattern = match syntax {
        Syntax::Python => &PYTHON,
        Syntax::Node => &NODE,
    };
    pattern
        .find_iter(expression)
        .map(|token| token.as_str())
        .filter(|token| !token.trim().is_empty())
        .collect()
}

/// Whether `token` is a string literal (with its prefix letters).
fn is_text(token: &str) -> bool {
    token.len() >= 2 && token.ends_with(['\'', '"', '`'])
}

/// Whether `token` is a name.
fn is_name(token: &str) -> bool {
    token.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '$') && !is_text(token)
}

/// A reading of one expression's tokens.
struct Reader<'a> {
    tokens: Vec<&'a str>,
    at: usize,
    code: &'a str,
    syntax: Syntax,
    depth: usize,
    readings: &'a Cell<usize>,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.tokens.get(self.at).copied()
    }

    fn next(&mut self) -> Option<&'a str> {
        let token = self.peek()?;
        self.at += 1;
        Some(token)
    }

    /// Terms joined by `+`, a path's `/`, or alternatives (`a or b`).
    fn expression(&mut self) -> Option<Shape> {
        let python = self.syntax == Syntax::Python;
        let mut shape = self.term()?;
        while let Some(token) = self.peek() {
            match token {
                "+" => {
                    self.at += 1;
                    shape = shape.joined(self.term()?)?;
                }
                // `Path(__file__).parent / 'lib'`: parted by a separator.
                "/" if python => {
                    self.at += 1;
                    let right = self.term()?;
                    shape = Shape {
                        ends: right.ends,
                        empty: false,
                        ..shape
                    };
                }
                "or" | "and" | "if" | "else" | "in" | "is" if python => {
                    self.at += 1;
                    shape = shape.either(self.term()?);
                }
                "||" | "??" | "&&" | "?" | ":" | "===" | "!==" | "==" | "!=" if !python => {
                    self.at += 1;
                    shape = shape.either(self.term()?);
                }
                _ => break,
            }
        }
        Some(shape)
    }

    /// One operand and what follows it: `.name`, a call, an index.
    fn term(&mut self) -> Option<Shape> {
        let token = self.next()?;
        let text = is_text(token);
        let mut shape = match token {
            _ if text => self.text(token)?,
            "not" | "new" | "await" | "typeof" | "-" | "!" | "*" => return self.term(),
            "(" => self.group()?,
            "[" => {
                self.items("]")?;
                Shape::PLACE
            }
            _ if token.starts_with(|c: char| c.is_ascii_digit()) => Shape::of_text(token),
            _ if is_name(token) => self.name(token)?,
            _ => return None,
        };
        let mut last = (!text).then_some(token);
        loop {
            match self.peek() {
                Some("." | "?.") => {
                    self.at += 1;
                    let attribute = self.next().filter(|a| is_name(a))?;
                    // A string's own method (`''.join`, `'%s'.format`),
                    // but for a cut at a separator.
                    let env = matches!(last, Some("env" | "environ"));
                    if !env
                        && (!super::spelled_names::allowed(attribute, self.syntax)
                            || (last.is_none() && !STRING_METHODS.contains(&attribute)))
                    {
                        return None;
                    }
                    // A list's `join` (not a path's): at a separator only.
                    let list_join = attribute == "join" && !matches!(last, Some("path" | "posix"));
                    last = Some(if list_join { "[].join" } else { attribute });
                }
                Some("(") => {
                    self.at += 1;
                    self.arguments(last)?;
                    last = last.filter(|l| !GIVES_TEXT.contains(l)).map(|_| "()");
                }
                Some("[") => {
                    // A character of a text (`'abcm'[3]`, `f.read()[3]`).
                    if last.is_none_or(|l| GIVES_TEXT.contains(&l)) {
                        return None;
                    }
                    self.at += 1;
                    self.expression()?;
                    (self.next()? == "]").then_some(())?;
                    last = Some("[]");
                }
                _ => break,
            }
            shape = Shape::PLACE;
        }
        Some(shape)
    }

    /// A string literal: its ends, and its interpolated pieces read.
    fn text(&self, token: &str) -> Option<Shape> {
        let prefix = token.find(['\'', '"', '`'])?;
        let quote = if token[prefix..].starts_with("'''") || token[prefix..].starts_with("\"\"\"") {
            3
        } else {
            1
        };
        let body = token.get(prefix + quote..token.len() - quote)?;
        let formatted = match self.syntax {
            Syntax::Python => token[..prefix].contains(['f', 'F']),
            Syntax::Node => token.starts_with('`'),
        };
        if !formatted {
            return Some(Shape::of_text(body));
        }
        self.formatted(body)
    }

    /// An f-string's or a template's body: its text and `{…}` / `${…}`
    /// pieces joined in order.
    fn formatted(&self, body: &str) -> Option<Shape> {
        let python = self.syntax == Syntax::Python;
        let opening = if python { "{" } else { "${" };
        let mut shape = Shape::of_text("");
        let mut rest = body;
        loop {
            let Some(at) = rest.find(opening) else {
                return shape.joined(Shape::of_text(rest));
            };
            // `{{`: a brace written out.
            if python && rest[at..].starts_with("{{") {
                shape = shape.joined(Shape::of_text(&rest[..at + 1]))?;
                rest = &rest[at + 2..];
                continue;
            }
            shape = shape.joined(Shape::of_text(&rest[..at]))?;
            let inside = &rest[at + opening.len()..];
            let end = super::brackets::scan(inside, |_, _, depth| depth < 0)?;
            let piece = &inside[..end];
            // A conversion or format (`{109:c}`, `{x!r}`) makes other text.
            if python
                && super::brackets::scan(piece, |_, c, depth| depth == 0 && matches!(c, ':' | '!'))
                    .is_some()
            {
                return None;
            }
            let inner = self::shape(
                piece,
                (self.code, self.syntax),
                self.depth + 1,
                self.readings,
            );
            shape = shape.joined(inner?)?;
            rest = &inside[end + 1..];
        }
    }

    /// `( … )`: one expression, or a tuple.
    fn group(&mut self) -> Option<Shape> {
        let shape = self.expression()?;
        match self.next()? {
            ")" => Some(shape),
            "," => {
                self.items(")")?;
                Some(Shape::PLACE)
            }
            _ => None,
        }
    }

    /// Expressions parted by `,` up to `close`.
    fn items(&mut self, close: &str) -> Option<()> {
        loop {
            if self.peek()? == close {
                self.at += 1;
                return Some(());
            }
            self.expression()?;
            match self.next()? {
                "," => {}
                token if token == close => return Some(()),
                _ => return None,
            }
        }
    }

    /// A call's arguments up to its `)`: keyword names aside; a cut's
    /// characters no letter or digit; a list joined at a separator; no
    /// literal decoded as data (`JSON.parse('"\\u006d"')`).
    fn arguments(&mut self, callee: Option<&str>) -> Option<()> {
        let cutter = callee.is_some_and(|c| CUTTERS.contains(&c));
        let first_text = self.peek().filter(|t| is_text(t));
        if callee == Some("[].join") {
            let joint = first_text.and_then(|t| t.get(1..t.len() - 1));
            matches!(joint, Some("/" | ".")).then_some(())?;
        }
        if matches!(callee, Some("parse" | "loads" | "load")) && first_text.is_some() {
            return None;
        }
        let mut first = true;
        loop {
            if self.peek()? == ")" {
                self.at += 1;
                return Some(());
            }
            if self.tokens.get(self.at + 1) == Some(&"=") && is_name(self.peek()?) {
                self.at += 2;
            }
            if cutter && first {
                let cut = self.peek().filter(|t| is_text(t))?;
                if cut.chars().any(char::is_alphanumeric) {
                    return None;
                }
            }
            first = false;
            self.expression()?;
            match self.next()? {
                "," => {}
                ")" => return Some(()),
                _ => return None,
            }
        }
    }

    /// A name: the values the code gives it; else, when the code gives it
    /// none, a constant, a built-in name, or a name imported from a module
    /// ([`super::spelled_names::unbound`]).
    fn name(&mut self, name: &'a str) -> Option<Shape> {
        if matches!(
            name,
            "True" | "False" | "None" | "true" | "false" | "null" | "undefined"
        ) {
            return Some(Shape::PLACE);
        }
        if let Some(values) = super::spelled_names::bound(self.code, name, self.syntax) {
            if self.depth >= MAX_DEPTH {
                return None;
            }
            let mut found: Option<Shape> = None;
            for value in values? {
                let one = shape(
                    &value,
                    (self.code, self.syntax),
                    self.depth + 1,
                    self.readings,
                )?;
                found = Some(found.map_or(one, |f| f.either(one)));
            }
            return found;
        }
        let used = self.peek() == Some(".");
        super::spelled_names::unbound(self.code, name, self.syntax, used).then_some(Shape::PLACE)
    }
}
