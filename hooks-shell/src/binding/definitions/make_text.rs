//! A `Makefile` line as the shell text `make` hands to its shell: `$$` is
//! one `$`; a variable the makefile sets to static text (`BIN := app`) is
//! that text; any other variable or automatic variable (`$(CC)`, `$@`,
//! `$<`) is a value the makefile does not write, read as a variable of
//! the environment (`${CC}`); `$(MAKE)` is `make`; `$(shell CMD)` is the
//! shell's `$(CMD)`; another function (`$(strip …)`, `$(or …)`) is a value
//! computed when it runs (`$(:)`): data as an argument, never approved as
//! a name it runs (red team R45-5: `$(strip ) sh $$(…)`). The computed-name reading then
//! reads it as any command ([`crate::binding::identify()`]): `sh
//! $$(printf tools/g.%s sh)` or `sh $(SCRIPT)` with `SCRIPT =
//! $(shell …)` runs a name computed when it runs (red team R44-12).

use std::collections::HashMap;
use std::path::Path;

mod automatic;
mod exported;
use automatic::{Rule, automatic, written_rule};
pub(super) use exported::{exported, make_exports, read_from_environment};

/// How deep a variable's value is expanded in turn.
const MAX_DEPTH: usize = 8;

/// The variables of a makefile's text set to a value (`NAME = v`, `:=`,
/// `::=`, `?=`, `+=` appended; `override` and `export` read too; a
/// `define … endef` block; a target's own value, `lint: G = v`). A name
/// set more than once keeps its last value, unless one of them runs a
/// shell (`$(shell …)`, `!=`): it is then computed in every recipe.
pub(super) fn variables(text: &str) -> HashMap<String, String> {
    let mut vars: HashMap<String, String> = HashMap::new();
    let lines = logical_lines(text);
    let mut lines = lines.iter().map(String::as_str);
    while let Some(line) = lines.next() {
        if line.starts_with('\t') {
            continue;
        }
        let line = without_prefixes(line.trim_start());
        if let Some(rest) = line.strip_prefix("define ") {
            let mut words = rest.split_whitespace();
            let name = words.next().unwrap_or("");
            let op = words.next().unwrap_or("=");
            let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "endef").collect();
            set(&mut vars, name, op, body.join("\n"));
            continue;
        }
        // `lint: G = v`, `lint: export G := v`: the target's own value.
        let line = match (line.find(':'), line.find('=')) {
            (Some(colon), Some(equals))
                if colon < equals && !line[colon + 1..].starts_with([':', '=']) =>
            {
                without_prefixes(line[colon + 1..].trim_start())
            }
            _ => line,
        };
        let Some((name, op, value)) = assignment(line) else {
            continue;
        };
        let value = value.split('#').next().unwrap_or("").trim().to_owned();
        set(&mut vars, name, op, value);
    }
    vars
}

/// The `PATH` a makefile's variables give its recipes, as the assignment
/// that starts each recipe's shell text (`PATH="/p/tools:${PATH}" `;
/// empty when it gives none): the folder make runs in (`dir`) for
/// `$(CURDIR)`, `$(shell pwd)` and `$(PWD)` (red team round 59, F1-12,
/// F1-23, F1-25).
pub(super) fn search_path(vars: &HashMap<String, String>, dir: &Path) -> String {
    let Some(value) = vars.get("PATH") else {
        return String::new();
    };
    let folder = dir.display().to_string();
    // `$(PATH)` in its own value is the environment's.
    let mut others = vars.clone();
    others.remove("PATH");
    let text = shell_text(value, &others)
        .replace("${CURDIR}", &folder)
        .replace("$(pwd)", &folder)
        .replace("${PWD}", &folder);
    format!("PATH=\"{}\" ", text.replace('"', "\\\""))
}

/// `line` without a leading `override` / `export` / `private`.
fn without_prefixes(line: &str) -> &str {
    let mut line = line;
    while let Some(rest) = ["override ", "export ", "private "]
        .iter()
        .find_map(|word| line.strip_prefix(word))
    {
        line = rest.trim_start();
    }
    line
}

/// Sets `name` with `op` to `value` in `vars` (see [`variables`]).
fn set(vars: &mut HashMap<String, String>, name: &str, op: &str, value: String) {
    let runs = |text: &str| text.contains("$(shell") || text.contains("${shell");
    match (op, vars.get_mut(name)) {
        ("+=", Some(entry)) => {
            if !entry.is_empty() {
                entry.push(' ');
            }
            entry.push_str(&value);
        }
        ("?=", Some(_)) => {}
        (_, Some(entry)) if runs(entry) || runs(&value) => *entry = "$(shell :)".to_owned(),
        _ => {
            vars.insert(name.to_owned(), value);
        }
    }
}

/// The makefile's lines, each continued line (`\` at its end) joined with
/// the next as make reads it (a recipe line keeps the joined line's tab).
pub(super) fn logical_lines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        match (open, lines.last_mut()) {
            (true, Some(last)) => {
                last.pop();
                last.push(' ');
                last.push_str(line.strip_prefix('\t').unwrap_or(line).trim_start());
            }
            _ => lines.push(line.to_owned()),
        }
        open = line.ends_with('\\');
    }
    lines
}

/// `NAME OP VALUE` of an assignment line, `OP` one of `=`, `:=`, `::=`,
/// `:::=`, `?=`, `+=`, `!=` (a shell command's output: read as computed).
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let at = line.find('=')?;
    let (left, value) = (&line[..at], &line[at + 1..]);
    let (name, op) = match left
        .char_indices()
        .rev()
        .find(|(_, c)| !":?+!".contains(*c))
    {
        Some((end, _)) => (&left[..=end], &line[end + 1..=at]),
        None => return None,
    };
    let name = name.trim();
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'));
    let op = match op.trim_start() {
        "=" | ":=" | "::=" | ":::=" | "?=" | "+=" => op.trim_start(),
        "!=" => return Some((name, "=", "$(shell :)")).filter(|_| plain),
        _ => return None,
    };
    plain.then_some((name, op, value))
}

/// `line` (a recipe line, or a `$(shell …)` body) as the shell text make
/// runs, `vars` the makefile's own variables ([`variables`]).
pub(super) fn shell_text(line: &str, vars: &HashMap<String, String>) -> String {
    expand(line, vars, 0)
}

fn expand(text: &str, vars: &HashMap<String, String>, depth: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let Some(next) = after.chars().next() else {
            rest = after;
            break;
        };
        match next {
            '$' => {
                out.push('$');
                rest = &after[1..];
            }
            '(' | '{' => {
                let close = if next == '(' { ')' } else { '}' };
                let Some(end) = closing(after, next, close) else {
                    // Unbalanced: what make does with it is not read.
                    out.push_str("$(:)");
                    rest = "";
                    break;
                };
                out.push_str(&reference(&after[1..end], vars, depth));
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str(&reference(&after[..next.len_utf8()], vars, depth));
                rest = &after[next.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// What `$(inner)` / `$X` reads as: see the module documentation.
fn reference(inner: &str, vars: &HashMap<String, String>, depth: usize) -> String {
    let is_name = !inner.is_empty()
        && inner
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if !is_name {
        // A function (`shell`, `subst`, `wildcard`...), a substitution
        // reference (`$(SRC:.c=.o)`), an automatic variable (`$@`, `$<`)
        // or a computed variable name (`$($(X))`): not written in the text.
        if inner.chars().all(|c| "@<^?*+|%".contains(c)) {
            return "${MAKE_AUTOMATIC}".to_owned();
        }
        // `$(shell CMD)`: the shell's own `$(CMD)`, read as such
        // (`$(shell command -v python3)` finds a place, `$(shell printf
        // …)` computes a name).
        if let Some(body) = inner
            .strip_prefix("shell")
            .filter(|body| body.starts_with([' ', '\t']) && depth < MAX_DEPTH)
        {
            return format!("$({})", expand(body.trim(), vars, depth + 1));
        }
        // Another function (`$(strip …)`, `$(or …)`): text this reading
        // does not work out, so a name it gives is computed.
        return "$(:)".to_owned();
    }
    match vars.get(inner) {
        // `$(MAKE) -C sub`: make itself, read as any make command.
        None if inner == "MAKE" => "make".to_owned(),
        Some(value) if depth < MAX_DEPTH => expand(value, vars, depth + 1),
        Some(_) => "$(:)".to_owned(),
        None => format!("${{{}}}", inner.replace(['.', '-'], "_")),
    }
}

/// The index in `text` (starting at `open`) of its matching `close`.
fn closing(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(at);
            }
        }
    }
    None
}

/// The recipes of a makefile's `lines` ([`logical_lines`]), as make hands
/// them to its shell before expanding them: each tab line (its `@`, `-`,
/// `+` out), a rule's own `target: prereqs ; recipe`, and, under
/// `.ONESHELL:`, each rule's lines as one script (red team R45-5). A
/// makefile that changes its recipe prefix (`.RECIPEPREFIX`) is not read.
pub(super) fn recipes(
    lines: &[String],
    vars: &HashMap<String, String>,
    with_others: bool,
) -> Result<Vec<String>, String> {
    if lines.iter().any(|line| line.contains(".RECIPEPREFIX")) {
        return Err(
            "a makefile that changes its recipe prefix (.RECIPEPREFIX) cannot be read".to_owned(),
        );
    }
    let one_shell = lines
        .iter()
        .any(|line| line.trim_start().starts_with(".ONESHELL"));
    let mut recipes: Vec<String> = Vec::new();
    let mut in_recipe = false;
    // The rule the recipe lines below belong to: its first target and its
    // prerequisites, when written out (`lint: tools/a.sh`).
    let mut rule: Option<Rule> = None;
    let merged = automatic::Merged::of(lines, vars, with_others);
    for line in lines {
        if let Some(recipe) = line.strip_prefix('\t') {
            let recipe = recipe.trim_start().trim_start_matches(['@', '-', '+']);
            let recipe = automatic(recipe, rule.as_ref());
            let recipe = recipe.as_str();
            match (one_shell && in_recipe, recipes.last_mut()) {
                (true, Some(last)) => {
                    last.push('\n');
                    last.push_str(recipe);
                }
                _ => recipes.push(recipe.to_owned()),
            }
            in_recipe = true;
            continue;
        }
        in_recipe = false;
        // `lint: ; sh x`: a rule's recipe on its own line.
        let line = line.trim_start();
        if line.starts_with('#') || assignment(without_prefixes(line)).is_some() {
            continue;
        }
        rule = written_rule(line, vars, &merged);
        if let (Some(colon), Some(semicolon)) = (line.find(':'), line.find(';'))
            && colon < semicolon
        {
            let recipe = line[semicolon + 1..].trim_start();
            let recipe = recipe.trim_start_matches(['@', '-', '+']);
            recipes.push(automatic(recipe, rule.as_ref()));
            in_recipe = true;
        }
    }
    Ok(recipes)
}

/// The bodies of the `$(shell …)` calls in `line` (make runs them when it
/// reads the makefile, or expands the variable that holds them).
pub(super) fn shell_calls(line: &str) -> Vec<&str> {
    let mut calls = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("$(shell") {
        let after = &rest[at + 1..];
        let Some(end) = closing(after, '(', ')') else {
            break;
        };
        let body = &after[1..end];
        if let Some(body) = body
            .strip_prefix("shell")
            .filter(|b| b.starts_with([' ', '\t']))
        {
            calls.push(body.trim());
        }
        rest = &after[end + 1..];
    }
    calls
}

/// Why `make` with `args` cannot be read: it reads a makefile from its
/// input or a descriptor (`-f -`, `-f /dev/stdin`, `--file=/dev/fd/3`, `-f
/// <(…)`), text no file holds, whose recipes no reading sees (red team
/// R43-11).
pub(crate) fn makefile_from_input(args: &[String]) -> Option<String> {
    let is_input = |name: &str| {
        name == "-"
            || name.starts_with("/dev/")
            || name.starts_with("/proc/")
            || name.contains("<(")
    };
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let named = match word.as_str() {
            "--file" | "--makefile" => words.next().map(String::as_str),
            long if long.starts_with("--") => ["--file=", "--makefile="]
                .iter()
                .find_map(|prefix| long.strip_prefix(prefix)),
            // `-f X`, `-fX`, `-sf X`: the letters up to one taking a value.
            short if short.starts_with('-') => {
                let letters = &short[1..];
                match letters.find(|c: char| "fCIoWjl".contains(c)) {
                    Some(at) if letters[at..].starts_with('f') => match &letters[at + 1..] {
                        "" => words.next().map(String::as_str),
                        rest => Some(rest),
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(name) = named.filter(|name| is_input(name)) {
            return Some(format!("make reads a makefile no file holds (`{name}`)"));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recipe_line_reads_as_the_shell_text_make_runs() {
        let vars = variables("BIN := app\nSCRIPT = tools/g.sh\nX = $(shell printf a)\nY != date\n");
        let read = |line: &str| shell_text(line, &vars);
        assert_eq!(
            read("sh $$(printf tools/g.%s sh) a"),
            "sh $(printf tools/g.%s sh) a"
        );
        assert_eq!(read("./$(BIN) --check"), "./app --check");
        assert_eq!(read("sh ${SCRIPT}"), "sh tools/g.sh");
        assert_eq!(read("sh $(X)"), "sh $(printf a)");
        assert_eq!(
            read("$(shell command -v python3) x.py"),
            "$(command -v python3) x.py"
        );
        assert_eq!(read("sh $(Y)"), "sh $(:)");
        assert_eq!(
            read("$(CC) -o $@ $<"),
            "${CC} -o ${MAKE_AUTOMATIC} ${MAKE_AUTOMATIC}"
        );
        assert_eq!(read("sh $(subst x,g,tools/x.sh)"), "sh $(:)");
        assert_eq!(read("python3 $(or $(D),tools)/c.py"), "python3 $(:)/c.py");
        assert_eq!(read("$(strip ) sh x"), "$(:) sh x");
        assert_eq!(read("sh $(call f,x)"), "sh $(:)");
        assert_eq!(read("$(MAKE) -C sub"), "make -C sub");
    }

    #[test]
    fn a_variable_set_to_itself_is_not_followed_for_ever() {
        let vars = variables("A = $(B)\nB = $(A)\n");
        assert_eq!(shell_text("sh $(A)", &vars), "sh $(:)");
    }

    #[test]
    fn assignments_are_read_in_each_spelling() {
        let vars = variables(
            "override A := 1\nexport B ?= 2\nB ?= 3\nC = x\nC += y\nD ::= 4 # note\n\tE = recipe\n",
        );
        assert_eq!(vars["A"], "1");
        assert_eq!(vars["B"], "2");
        assert_eq!(vars["C"], "x y");
        assert_eq!(vars["D"], "4");
        assert!(!vars.contains_key("E"));
    }

    #[test]
    fn defines_targets_own_values_and_continued_lines_are_read() {
        let text = "define G\nsh $(shell printf tools/g.%s sh) a\nendef\n\
                    lint: H := $(shell printf x)\nH = ok\nB = a\nB = b\n\
                    all:\n\t@sh \\\n\t  tools/x.sh a\n";
        let vars = variables(text);
        assert_eq!(shell_text("$(G)", &vars), "sh $(printf tools/g.%s sh) a");
        assert_eq!(shell_text("$(H)", &vars), "$(:)");
        assert_eq!(vars["B"], "b");
        assert!(logical_lines(text).contains(&"\t@sh  tools/x.sh a".to_owned()));
    }

    #[test]
    fn recipes_are_read_as_make_hands_them_to_the_shell() {
        let lines = |text: &str| logical_lines(text);
        let none = HashMap::new();
        let one = lines("a: ; @sh x a\nb:\n\t@f() { sh \"$$1\"; }\n\tf y\n");
        assert_eq!(
            recipes(&one, &none, false).expect("read"),
            vec!["sh x a", "f() { sh \"$$1\"; }", "f y"]
        );
        let joined = lines(".ONESHELL:\nb:\n\t@f() { sh \"$$1\"; }\n\tf y\nc:\n\tz\n");
        assert_eq!(
            recipes(&joined, &none, false).expect("read"),
            vec!["f() { sh \"$$1\"; }\nf y", "z"]
        );
        assert!(recipes(&lines(".RECIPEPREFIX = >\nb:\n> sh x\n"), &none, false).is_err());
        // Round 62, U-2: a written rule's automatic variables.
        let automatic = lines("lint: tools/a.sh b.sh\n\t@sh $< && cat $^ > $@ && echo $$<\n");
        assert_eq!(
            recipes(&automatic, &none, false).expect("read"),
            vec!["sh tools/a.sh && cat tools/a.sh b.sh > lint && echo $$<"]
        );
        let pattern = lines("%.o: %.c\n\tcc -c $<\n");
        assert_eq!(
            recipes(&pattern, &none, false).expect("read"),
            vec!["cc -c $<"]
        );
        assert!(
            recipes(&lines("X := a; b\n"), &none, false)
                .expect("read")
                .is_empty()
        );
    }

    #[test]
    fn shell_calls_are_found_where_make_runs_them() {
        let line = "X := $(shell sh $$(printf tools/g.%s sh) a) $(shellx y) $(shell (cd a; ls))";
        assert_eq!(
            shell_calls(line),
            vec!["sh $$(printf tools/g.%s sh) a", "(cd a; ls)"]
        );
    }
}
