//! What a Node expression holds as far as its words tell, for the loads
//! [`super::loads`] reads (red team round 55, H55-9): a text written out,
//! a path of the folder the code runs in (`process.cwd() + "/m"`,
//! `p.resolve("m")` with `p` Node's `path`, `[process.cwd(), "m"].join("/")`,
//! `path.resolve(process.env.CLAUDE_PROJECT_DIR || ".", "m")`), a path
//! elsewhere (`__dirname`), one of Node's modules or functions; else
//! unknown, and then whether that folder went into it. How each is read
//! from the code's words is [`super::reader`]'s.

/// The most values one expression may have (`a || b`); past it, unknown.
const MAX_EITHER: usize = 8;

/// One of Node's modules or objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Object {
    /// `path` (`path/posix`, `path.posix`).
    Path,
    /// `module`.
    Module,
    /// `url`.
    Url,
    /// `os`.
    Os,
    /// `process`.
    Process,
    /// `process.env`.
    Env,
    /// `import.meta`.
    Meta,
    /// `worker_threads`.
    WorkerThreads,
}

/// One of Node's functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Function {
    /// `path.resolve`.
    Resolve,
    /// `path.join`.
    Join,
    /// `path.normalize`.
    Normalize,
    /// `path.dirname`.
    Dirname,
    /// Another of `path`'s (`basename`, `format`): what it gives unknown.
    OtherPath,
    /// `process.cwd`.
    Cwd,
    /// `module.createRequire`.
    CreateRequire,
    /// `require` (`import(…)` too); `here`: one made for a file of the
    /// folder the code runs in (`createRequire(process.cwd() + "/")`).
    Require { here: bool },
    /// `require.resolve`, of such a `require`.
    RequireResolve { here: bool },
    /// `new URL(…)`.
    Url,
    /// Gives its argument (`String`, `fileURLToPath`, `pathToFileURL`).
    Same,
    /// Gives a path elsewhere (`os.homedir`, `os.tmpdir`).
    Elsewhere,
    /// `worker_threads.Worker`, which runs the file it is given.
    Worker,
}

/// What an expression holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Value {
    /// A text written out.
    Text(String),
    /// The path of the folder the code runs in followed by this text
    /// (`process.cwd() + "/m"`: `/m`).
    Here(String),
    /// A path outside that folder (`__dirname`, `os.homedir()`).
    Elsewhere,
    /// One of Node's modules or objects.
    Object(Object),
    /// One of Node's functions.
    Function(Function),
    /// A list's items.
    List(Vec<Value>),
    /// One of these (`a || b`, a name given two values).
    Either(Vec<Value>),
    /// Anything; `true` when the folder the code runs in went into it.
    Unknown(bool),
}

impl Value {
    /// Whether the folder the code runs in went into it.
    pub(super) fn here(&self) -> bool {
        match self {
            Value::Here(_)
            | Value::Unknown(true)
            | Value::Function(
                Function::Require { here: true } | Function::RequireResolve { here: true },
            ) => true,
            Value::List(items) | Value::Either(items) => items.iter().any(Value::here),
            _ => false,
        }
    }

    /// Each value it may be.
    pub(super) fn each(&self) -> Vec<Value> {
        match self {
            Value::Either(items) => items.clone(),
            other => vec![other.clone()],
        }
    }
}

/// One of `values`, each once; unknown past [`MAX_EITHER`].
pub(super) fn either(values: Vec<Value>) -> Value {
    let mut all: Vec<Value> = Vec::new();
    for value in values.iter().flat_map(Value::each) {
        if !all.contains(&value) {
            all.push(value);
        }
    }
    if all.len() > MAX_EITHER {
        return Value::Unknown(all.iter().any(Value::here));
    }
    match all.len() {
        1 => all.swap_remove(0),
        _ => Value::Either(all),
    }
}

/// `f` of each value `value` may be.
pub(super) fn each(value: &Value, f: impl Fn(&Value) -> Value) -> Value {
    either(value.each().iter().map(f).collect())
}

/// `f` of each pair of values `a` and `b` may be.
pub(super) fn pairs(a: &Value, b: &Value, f: impl Fn(&Value, &Value) -> Value) -> Value {
    let (a, b) = (a.each(), b.each());
    if a.len() * b.len() > MAX_EITHER {
        return Value::Unknown(a.iter().chain(&b).any(Value::here));
    }
    either(a.iter().flat_map(|a| b.iter().map(|b| f(a, b))).collect())
}

/// `a + b`.
pub(super) fn concat(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Text(a), Value::Text(b)) => Value::Text(format!("{a}{b}")),
        // `process.cwd() + "m"` names a folder beside it.
        (Value::Here(a), Value::Text(b)) if !a.is_empty() || b.is_empty() || b.starts_with('/') => {
            Value::Here(format!("{a}{b}"))
        }
        (Value::Text(a), Value::Here(b)) if a.is_empty() || a == "file://" => {
            Value::Here(b.clone())
        }
        (Value::Elsewhere, Value::Text(_)) => Value::Elsewhere,
        (a, b) => Value::Unknown(a.here() || b.here()),
    }
}

/// `value.name`.
pub(super) fn member(value: &Value, name: &str) -> Value {
    use Function as F;
    let function = |function| Value::Function(function);
    match (value, name) {
        (Value::Object(Object::Process), "cwd") => function(F::Cwd),
        (Value::Object(Object::Process), "env") => Value::Object(Object::Env),
        (Value::Object(Object::Env), _) => {
            let here = ["PROJECT_DIR", "PWD", "CWD"]
                .iter()
                .any(|end| name.ends_with(end));
            match here {
                true => Value::Here(String::new()),
                false => Value::Unknown(false),
            }
        }
        (Value::Object(Object::Path), "resolve") => function(F::Resolve),
        (Value::Object(Object::Path), "join") => function(F::Join),
        (Value::Object(Object::Path), "normalize") => function(F::Normalize),
        (Value::Object(Object::Path), "dirname") => function(F::Dirname),
        (Value::Object(Object::Path), "posix" | "win32" | "default") => Value::Object(Object::Path),
        (Value::Object(Object::Path), _) => function(F::OtherPath),
        (Value::Object(Object::Module), "createRequire" | "createRequireFromPath") => {
            function(F::CreateRequire)
        }
        (Value::Object(Object::Url), "fileURLToPath" | "pathToFileURL") => function(F::Same),
        (Value::Object(Object::Url), "URL") => function(F::Url),
        (Value::Object(Object::Os), "homedir" | "tmpdir") => function(F::Elsewhere),
        (Value::Object(Object::Meta), "url" | "dirname" | "filename") => Value::Elsewhere,
        (Value::Object(Object::WorkerThreads), "Worker") => function(F::Worker),
        (Value::Function(F::Require { here }), "resolve") => {
            function(F::RequireResolve { here: *here })
        }
        (Value::Here(path), "href" | "pathname") => Value::Here(path.clone()),
        (Value::Elsewhere, "href" | "pathname") => Value::Elsewhere,
        // The hook's input names the folder it runs in (`input.cwd`).
        (_, "cwd") => Value::Here(String::new()),
        (other, _) => Value::Unknown(other.here()),
    }
}

/// `value[key]`.
pub(super) fn index(value: &Value, key: &Value) -> Value {
    pairs(value, key, |value, key| match (value, key) {
        (Value::List(items), Value::Text(at)) => match at.parse::<usize>() {
            Ok(at) => items.get(at).cloned().unwrap_or(Value::Unknown(false)),
            Err(_) => Value::Unknown(value.here()),
        },
        (_, Value::Text(name)) => member(value, name),
        _ => Value::Unknown(value.here() || key.here()),
    })
}

/// `value.name(…args)`.
pub(super) fn method(value: &Value, name: &str, args: &[Value]) -> Value {
    match (value, name) {
        (Value::Text(_) | Value::Here(_), "concat") => args
            .iter()
            .fold(value.clone(), |joined, arg| pairs(&joined, arg, concat)),
        (Value::Text(_) | Value::Here(_) | Value::Elsewhere, "toString") => value.clone(),
        (Value::List(items), "join") => {
            let joint = args
                .first()
                .cloned()
                .unwrap_or_else(|| Value::Text(",".to_owned()));
            let mut items = items.iter();
            let first = items.next().cloned().unwrap_or(Value::Text(String::new()));
            items.fold(first, |joined, item| {
                pairs(&pairs(&joined, &joint, concat), item, concat)
            })
        }
        (Value::Here(_), _) => Value::Unknown(true),
        (Value::Text(_), _) => Value::Unknown(args.iter().any(Value::here)),
        _ => each(&member(value, name), |function| call(function, args)),
    }
}

/// `callee(…args)` (`new callee(…args)` the same).
pub(super) fn call(callee: &Value, args: &[Value]) -> Value {
    let here = args.iter().any(Value::here);
    let Value::Function(function) = callee else {
        return Value::Unknown(here || callee.here());
    };
    let first = args.first().cloned().unwrap_or(Value::Unknown(false));
    match *function {
        Function::Cwd => Value::Here(String::new()),
        Function::Resolve | Function::Join => combinations(args, |args| path(*function, args)),
        Function::Normalize | Function::Dirname | Function::Same => {
            each(&first, |value| one(*function, value))
        }
        Function::CreateRequire => Value::Function(Function::Require { here }),
        Function::Require { here: made } => each(&first, |value| match value {
            Value::Text(name) => super::reader::module_named(name),
            other => Value::Unknown(made || other.here()),
        }),
        Function::RequireResolve { here: made } if args.len() == 1 => {
            each(&first, |value| match value {
                Value::Text(_) if made => Value::Unknown(true),
                other => other.clone(),
            })
        }
        Function::RequireResolve { here: made } => Value::Unknown(made || here),
        Function::Url => combinations(args, url),
        Function::Elsewhere => Value::Elsewhere,
        Function::OtherPath | Function::Worker => Value::Unknown(here),
    }
}

/// `f` of each list of values `args` may be.
fn combinations(args: &[Value], f: impl Fn(&[Value]) -> Value) -> Value {
    let mut lists: Vec<Vec<Value>> = vec![Vec::new()];
    for arg in args {
        let values = arg.each();
        if lists.len() * values.len() > MAX_EITHER {
            return Value::Unknown(args.iter().any(Value::here));
        }
        lists = lists
            .iter()
            .flat_map(|list| {
                values.iter().map(move |value| {
                    let mut list = list.clone();
                    list.push(value.clone());
                    list
                })
            })
            .collect();
    }
    either(lists.iter().map(|list| f(list)).collect())
}

/// `path.resolve(…args)` or `path.join(…args)`, no arg of two values.
fn path(function: Function, args: &[Value]) -> Value {
    let absolute = |arg: &Value| match arg {
        Value::Here(_) | Value::Elsewhere => true,
        Value::Text(text) => text.starts_with('/'),
        _ => false,
    };
    // `resolve` starts at its last absolute path, else the folder it runs in.
    let (mut joined, rest) = match function {
        Function::Resolve => match args.iter().rposition(absolute) {
            Some(at) => (args[at].clone(), &args[at + 1..]),
            None => (Value::Here(String::new()), args),
        },
        _ => match args.split_first() {
            Some((first, rest)) => (first.clone(), rest),
            None => return Value::Text(".".to_owned()),
        },
    };
    for arg in rest {
        joined = match (&joined, arg) {
            (Value::Here(path), Value::Text(part)) => Value::Here(format!("{path}/{part}")),
            (Value::Text(path), Value::Text(part)) => Value::Text(format!("{path}/{part}")),
            (Value::Elsewhere, Value::Text(_)) => Value::Elsewhere,
            (path, arg) => return Value::Unknown(path.here() || arg.here()),
        };
    }
    match joined {
        Value::Text(text) => Value::Text(normal_text(&text)),
        Value::Here(_) | Value::Elsewhere => joined,
        other => Value::Unknown(other.here() || function == Function::Resolve),
    }
}

/// `path.normalize`, `path.dirname`, `String` of one value.
fn one(function: Function, value: &Value) -> Value {
    match (function, value) {
        (Function::Normalize, Value::Text(text)) => Value::Text(normal_text(text)),
        (Function::Dirname, Value::Here(path)) => Value::Here(format!("/{}", parent(path))),
        (Function::Dirname, Value::Text(text)) => Value::Text(parent(text)),
        (Function::Dirname, Value::Unknown(_) | Value::List(_)) => Value::Unknown(value.here()),
        _ => value.clone(),
    }
}

/// `new URL(…args)`: a path relative to a base, or a path.
fn url(args: &[Value]) -> Value {
    match args {
        [Value::Text(text)] if text.starts_with("file:") => Value::Elsewhere,
        [one] => one.clone(),
        [Value::Text(relative), Value::Here(base)]
            if !relative.starts_with('/') && !relative.contains(':') =>
        {
            let folder = match base.ends_with('/') {
                true => normal(base),
                false => parent(base),
            };
            Value::Here(format!("/{folder}/{relative}"))
        }
        [Value::Text(_), Value::Elsewhere] => Value::Elsewhere,
        _ => Value::Unknown(args.iter().any(Value::here)),
    }
}

/// `path` with `.` and `..` resolved by name, without its ends' `/`.
pub(super) fn normal(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

/// `path`'s folder (`..` for the empty path: the folder above).
pub(super) fn parent(path: &str) -> String {
    let path = normal(path);
    match path.rsplit_once('/') {
        _ if path.is_empty() || path.ends_with("..") => normal(&format!("{path}/..")),
        Some((folder, _)) => folder.to_owned(),
        None => String::new(),
    }
}

/// A written path as Node's `path.normalize` leaves it: a relative one
/// without its `./` (`path.join(".", "m")` is the bare name `m`).
fn normal_text(text: &str) -> String {
    let body = normal(text);
    match text.starts_with('/') {
        true => format!("/{body}"),
        false if body.is_empty() => ".".to_owned(),
        false => body,
    }
}

#[cfg(test)]
mod tests {
    use super::{normal, parent};

    #[test]
    fn paths_are_resolved_by_name() {
        assert_eq!(normal("/tools/./../m/"), "m");
        assert_eq!(normal("../a/../../b"), "../../b");
        assert_eq!(parent("/x.js"), "");
        assert_eq!(parent(""), "..");
        assert_eq!(parent("a/b"), "a");
        assert_eq!(parent(".."), "../..");
    }
}
