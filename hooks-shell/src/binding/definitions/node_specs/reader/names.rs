//! What a name in Node code holds, for [`super::Reader`] (red team round
//! 55, H55-9): the values the code gives it (`const p = require("path")`,
//! `const { resolve } = require("path")`, `import path from "node:path"`,
//! `for (const d of [process.cwd()])`), else Node's own (`process`,
//! `require`, `__dirname`); a name given again later (`n = …`, `n += …`)
//! holds what no reading follows.

use super::super::values::{self, Function, Object, Value};
use super::{Code, MAX_DEPTH, Reader, is_name, module_named, names_here, text};

impl<'a> Reader<'_, 'a> {
    /// What the name `name` holds: what the code gives it, else Node's.
    pub(super) fn name(&mut self, name: &'a str) -> Value {
        if name == "import" && self.peek() == Some(".") {
            self.at += 2;
            return Value::Object(Object::Meta);
        }
        let Some(left) = self.readings.get().checked_sub(1) else {
            return Value::Unknown(true);
        };
        self.readings.set(left);
        let known = match name {
            "process" => Value::Object(Object::Process),
            "require" | "import" => Value::Function(Function::Require { here: false }),
            "__dirname" | "__filename" => Value::Elsewhere,
            "URL" => Value::Function(Function::Url),
            "String" => Value::Function(Function::Same),
            "Worker" => Value::Function(Function::Worker),
            // Node's own modules, as inline code has them unloaded.
            "path" | "os" | "url" => module_named(name),
            _ if self.depth >= MAX_DEPTH => Value::Unknown(true),
            _ => Value::Unknown(false),
        };
        if self.depth >= MAX_DEPTH {
            return known;
        }
        let given = self.given(name);
        match given.is_empty() {
            true => known,
            false => values::either(given),
        }
    }

    /// The values the code gives `name`: declared (`const n = …`, taken
    /// from a module, a loop's items); unknown when given again later
    /// (`n = …`, `n += …`), with whether the folder it runs in went in.
    fn given(&self, name: &'a str) -> Vec<Value> {
        let mut given = Vec::new();
        let mut again = false;
        for giving in self.code.givings(name).iter() {
            given.push(match *giving {
                Giving::Declared(at) => self.value_at(at),
                Giving::Assigned(at) => {
                    again = true;
                    at.map_or(Value::Unknown(false), |at| self.value_at(at))
                }
                Giving::Looped(at) => match self.value_at(at) {
                    Value::List(items) => values::either(items),
                    other => Value::Unknown(other.here()),
                },
                Giving::Imported(source) => module_text(self.code.tokens[source]),
                Giving::Apart { key, from } => {
                    let whole = match from {
                        From::Value(at) => self.value_at(at),
                        From::Module(source) => module_text(self.code.tokens[source]),
                    };
                    let key = self.code.tokens[key];
                    values::each(&whole, |whole| values::member(whole, key))
                }
            });
        }
        match again {
            true => vec![Value::Unknown(given.iter().any(Value::here))],
            false => given,
        }
    }

    /// The value of the expression that starts at `at`.
    fn value_at(&self, at: usize) -> Value {
        let mut reader = Reader {
            code: self.code,
            tokens: &self.code.tokens,
            at,
            end: self.code.tokens.len(),
            depth: self.depth + 1,
            readings: self.readings,
        };
        reader.expression().unwrap_or_else(|| {
            let end = (at + 64).min(self.code.tokens.len());
            let statement = self.code.tokens[at.min(end)..end]
                .split(|token| *token == ";")
                .next()
                .unwrap_or_default();
            Value::Unknown(names_here(statement))
        })
    }
}

/// What `import … from source` gives, `source` a quoted module name.
fn module_text(source: &str) -> Value {
    match text(source.get(1..source.len().saturating_sub(1)).unwrap_or("")) {
        Value::Text(name) => module_named(&name),
        _ => Value::Unknown(false),
    }
}

/// How the code gives a name a value at one of its places.
#[derive(Clone, Copy, Debug)]
pub(super) enum Giving {
    /// `const n = …`: where the value starts.
    Declared(usize),
    /// `n = …` (where the value starts), `n += …`.
    Assigned(Option<usize>),
    /// `for (const n of …)`: where the list starts.
    Looped(usize),
    /// `import n from "m"`, `import * as n from "m"`: the source's token.
    Imported(usize),
    /// `const { k: n } = …`, `import { k as n } from "m"`: the key's token
    /// and what is taken apart.
    Apart { key: usize, from: From },
}

/// What a declaration takes apart.
#[derive(Clone, Copy, Debug)]
pub(super) enum From {
    /// A value, starting there.
    Value(usize),
    /// A module, its source's token there.
    Module(usize),
}

/// How `code` gives its name at `at` a value, if it does there.
pub(super) fn giving(code: &Code, at: usize) -> Option<Giving> {
    let before = at.checked_sub(1).and_then(|before| code.at(before));
    let after = code.at(at + 1);
    let declared = matches!(before, Some("const" | "let" | "var"));
    let assigned = matches!(
        after,
        Some("=" | "+=" | "-=" | "||=" | "&&=" | "??=" | "++" | "--")
    );
    match after {
        Some("=") if declared => Some(Giving::Declared(at + 2)),
        _ if assigned && !matches!(before, Some("." | "?.")) => {
            Some(Giving::Assigned((after == Some("=")).then_some(at + 2)))
        }
        Some("of") if declared => Some(Giving::Looped(at + 2)),
        Some("from") if matches!(before, Some("import" | "as")) => {
            Some(Giving::Imported(at + 2)).filter(|_| code.at(at + 2).is_some())
        }
        _ => taken_apart(code, at),
    }
}

/// How a declaration taking `code`'s name at `at` apart gives it: `const
/// { resolve, join: j } = require("path")`, `import { createRequire as c
/// } from "module"`.
fn taken_apart(code: &Code, at: usize) -> Option<Giving> {
    let part = |token: &str| token == "," || token == ":" || token == "as" || is_name(token);
    let mut open = at;
    while open > 0 && code.at(open - 1).is_some_and(part) {
        open -= 1;
    }
    let opened = open.checked_sub(1).and_then(|open| code.at(open)) == Some("{");
    let keyword = open.checked_sub(2).and_then(|at| code.at(at));
    let mut close = at + 1;
    while code.at(close).is_some_and(part) {
        close += 1;
    }
    if !opened || code.at(close) != Some("}") {
        return None;
    }
    let key = match at.checked_sub(1).and_then(|before| code.at(before)) {
        Some(":" | "as") => at - 2,
        _ => at,
    };
    let from = match (keyword, code.at(close + 1)) {
        (Some("const" | "let" | "var"), Some("=")) => From::Value(close + 2),
        (Some("import" | ","), Some("from")) if code.at(close + 2).is_some() => {
            From::Module(close + 2)
        }
        _ => return None,
    };
    Some(Giving::Apart { key, from })
}
