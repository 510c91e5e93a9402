//! The automatic variables of a makefile rule written out (`$@`, `$<`,
//! `$^`, `$+`, `$|`, and their `D`/`F` forms): what make gives them is the
//! text written (red team round 62, U-2: an ordinary `sh $<` could not be
//! approved), after the makefile's own variables in it are put in (round
//! 64, U-1: `lint: $(SCRIPTS)`, a double-colon `lint::`).

use std::collections::HashMap;

/// A rule written out: its target (`None`: it has several, and `$@` is
/// the one make is asked for), its prerequisites and its order-only
/// prerequisites (after a `|`), and whether other rules may add to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::binding::definitions) struct Rule {
    target: Option<String>,
    prerequisites: Vec<String>,
    order_only: Vec<String>,
    merged: bool,
}

/// Where make may merge other rules' prerequisites into a rule's: each
/// target several single-colon rules of the makefile name, or every one
/// when the makefile includes others, evaluates text (`$(eval …)`) or is
/// read with other makefiles (`lint: a.sh` in one and `lint: b.sh` with
/// the recipe in another: its `$^` is `b.sh a.sh`).
pub(in crate::binding::definitions) struct Merged {
    everywhere: bool,
    targets: HashMap<String, usize>,
}

impl Merged {
    /// What the makefile `lines` (with `vars`) merges; `with_others`: it
    /// is read with other makefiles for one run.
    pub(in crate::binding::definitions) fn of(
        lines: &[String],
        vars: &HashMap<String, String>,
        with_others: bool,
    ) -> Merged {
        let mut merged = Merged {
            everywhere: with_others,
            targets: HashMap::new(),
        };
        for line in lines.iter().filter(|line| !line.starts_with('\t')) {
            let line = line.trim_start();
            let first = line.split_whitespace().next().unwrap_or("");
            if matches!(first, "include" | "-include" | "sinclude") || line.contains("$(eval") {
                merged.everywhere = true;
            }
            let head = line.split(';').next().unwrap_or(line);
            let Some((targets, after)) = head.split_once(':') else {
                continue;
            };
            if after.starts_with([':', '=']) || line.starts_with('#') {
                continue;
            }
            for target in super::shell_text(targets, vars).split_whitespace() {
                *merged.targets.entry(target.to_owned()).or_default() += 1;
            }
        }
        merged
    }

    /// Whether the rule for `target` may have prerequisites of others.
    fn for_target(&self, target: &str) -> bool {
        self.everywhere || self.targets.get(target).is_some_and(|count| *count > 1)
    }
}

/// The rule `line` starts, when its targets and prerequisites are written
/// out or are variables the makefile sets to static text (`vars`): what
/// make gives `$@`, `$<` and `$^` then is that text. None for a pattern
/// rule, a target's own variable, a function or a variable whose value is
/// not written (its automatic variables stay computed).
pub(in crate::binding::definitions) fn written_rule(
    line: &str,
    vars: &HashMap<String, String>,
    merged: &Merged,
) -> Option<Rule> {
    let head = line.split(';').next().unwrap_or(line);
    let (targets, prerequisites) = head.split_once(':')?;
    // `lint:: a.sh`: a double-colon rule, its own prerequisites.
    let double = prerequisites.starts_with(':');
    let prerequisites = prerequisites.strip_prefix(':').unwrap_or(prerequisites);
    if prerequisites.starts_with([':', '=']) || head.contains(['%', '=']) {
        return None;
    }
    let written = |text: &str| {
        let text = super::shell_text(text, vars);
        (!text.contains(['$', '%', '=', ':', ';'])).then_some(text)
    };
    let targets = written(targets)?;
    let targets: Vec<&str> = targets.split_whitespace().collect();
    let prerequisites = written(prerequisites)?;
    let (normal, order_only) = prerequisites
        .split_once('|')
        .unwrap_or((&prerequisites, ""));
    let words = |text: &str| text.split_whitespace().map(str::to_owned).collect();
    Some(Rule {
        target: match targets.as_slice() {
            [one] => Some((*one).to_owned()),
            _ => None,
        },
        prerequisites: words(normal),
        order_only: words(order_only),
        merged: !double && targets.iter().any(|target| merged.for_target(target)),
    })
}

/// `recipe` with the automatic variables of its written `rule` put in
/// (`sh $<` of `lint: tools/a.sh` is `sh tools/a.sh`: red team round 62,
/// U-2); left as they are without one (then a name they give is computed).
pub(in crate::binding::definitions) fn automatic(recipe: &str, rule: Option<&Rule>) -> String {
    let Some(rule) = rule else {
        return recipe.to_owned();
    };
    // `$^` lists each prerequisite once, `$+` as written.
    let mut once: Vec<&String> = Vec::new();
    for prerequisite in &rule.prerequisites {
        if !once.contains(&prerequisite) {
            once.push(prerequisite);
        }
    }
    // Where other rules may add prerequisites, only `$<` of a rule that
    // writes its own is known; a value not known stays a variable (a name
    // it gives is computed).
    let first = match (rule.prerequisites.first(), rule.merged) {
        (Some(first), _) => Some(vec![first]),
        (None, false) => Some(Vec::new()),
        (None, true) => None,
    };
    let own = !rule.merged;
    let values: [(char, Option<Vec<&String>>); 5] = [
        ('@', rule.target.as_ref().map(|target| vec![target])),
        ('<', first),
        ('^', own.then_some(once)),
        ('+', own.then(|| rule.prerequisites.iter().collect())),
        ('|', own.then(|| rule.order_only.iter().collect())),
    ];
    let mut text = recipe.to_owned();
    for (name, words) in values {
        let Some(words) = words else {
            continue;
        };
        for (form, part) in [("", Part::Whole), ("D", Part::Folder), ("F", Part::File)] {
            let quoted: Option<Vec<String>> = words
                .iter()
                .map(|word| {
                    shlex::try_quote(&part.of(word))
                        .map(|q| q.into_owned())
                        .ok()
                })
                .collect();
            let Some(quoted) = quoted else {
                return recipe.to_owned();
            };
            let value = quoted.join(" ");
            let spellings = match form {
                "" => vec![
                    format!("${name}"),
                    format!("$({name})"),
                    format!("${{{name}}}"),
                ],
                _ => vec![format!("$({name}{form})"), format!("${{{name}{form}}}")],
            };
            for spelling in spellings {
                text = put_in(&text, &spelling, &value);
            }
        }
    }
    text
}

/// Which part of a word a variable's `D`/`F` form gives.
#[derive(Clone, Copy)]
enum Part {
    Whole,
    Folder,
    File,
}

impl Part {
    /// `word`'s part, as make gives it (`$(<D)` of `a.sh` is `.`).
    fn of(self, word: &str) -> String {
        let (folder, file) = match word.rsplit_once('/') {
            Some(("", file)) => ("/", file),
            Some((folder, file)) => (folder, file),
            None => (".", word),
        };
        match self {
            Part::Whole => word.to_owned(),
            Part::Folder => folder.to_owned(),
            Part::File => file.to_owned(),
        }
    }
}

/// `text` with each `name` not escaped as `$$` replaced by `value`.
fn put_in(text: &str, name: &str, value: &str) -> String {
    // `$$<` is the shell's `$<`, no variable of make's.
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(name) {
        let escaped = rest[..at].ends_with('$')
            && rest[..at].chars().rev().take_while(|c| *c == '$').count() % 2 == 1;
        out.push_str(&rest[..at]);
        out.push_str(if escaped { name } else { value });
        rest = &rest[at + name.len()..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::super::{logical_lines as lines, recipes, variables};

    #[test]
    fn automatic_variables_are_read_where_the_makefile_writes_them() {
        let none = HashMap::new();
        // Round 64, U-1: prerequisites in a variable, a double colon, the
        // order-only ones, the folder and file forms.
        let text = "S := tools/a.sh tools/b.sh\nT = tools\nlint:: $(S) | $(T)/o.sh\n\t@sh $< $^ $| $(<D) $(@F) ${^F}\n";
        let vars = variables(text);
        assert_eq!(
            recipes(&lines(text), &vars, false).expect("read"),
            vec!["sh tools/a.sh tools/a.sh tools/b.sh tools/o.sh tools lint a.sh b.sh"]
        );
        let computed = "S = $(wildcard tools/*.sh)\nlint: $(S)\n\tsh $<\n";
        let vars = variables(computed);
        assert_eq!(
            recipes(&lines(computed), &vars, false).expect("read"),
            vec!["sh $<"]
        );
        let twice = lines("lint: a.sh a.sh b.sh\n\tcat $^ $+\n");
        assert_eq!(
            recipes(&twice, &none, false).expect("read"),
            vec!["cat a.sh b.sh a.sh a.sh b.sh"]
        );
        // Other rules' prerequisites: make merges them into `$^` (and into
        // `$<` of a rule writing none); several targets: `$@` is asked for.
        let merged = "lint: a.sh\nlint: b.sh\n\tsh $< $^ $@\nc: ; sh $<\nc: c.sh\n";
        assert_eq!(
            recipes(&lines(merged), &none, false).expect("read"),
            vec!["sh b.sh $^ lint", "sh $<"]
        );
        let apart = lines("lint: b.sh\n\tsh $< $^\n");
        assert_eq!(
            recipes(&apart, &none, true).expect("read"),
            vec!["sh b.sh $^"]
        );
        let included = lines("include d.mk\nlint check: b.sh\n\tsh $^ $@\n");
        assert_eq!(
            recipes(&included, &none, false).expect("read"),
            vec!["sh $^ $@"]
        );
    }
}
