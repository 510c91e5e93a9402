//! What a simple command assigns, for [`super::computed_name`]: the
//! variables computed text is put in, and what assigning it refuses.

use super::MAX_DEPTH;
use super::commands::{ENVIRONMENT, array_name};
use super::words::{Words, is_name};

/// Variables that choose which code runs by name.
const SEARCH_PATHS: [&str; 9] = [
    "PATH",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "NODE_PATH",
    "NODE_OPTIONS",
    "PERL5LIB",
    "RUBYLIB",
    "BASH_ENV",
    "ENV",
];

impl super::Reader {
    /// Why code in the subscript of a name among `words` runs a computed
    /// name (`a[$(…)]`, quoted, reaches the command whole).
    fn subscripts(&mut self, words: &[String], reading: &Words) -> Option<String> {
        for word in words {
            let Some((_, rest)) = word.split_once('[') else {
                continue;
            };
            let inside = rest.rsplit_once(']').map_or(rest, |(inside, _)| inside);
            if inside.contains("$(") || inside.contains('`') {
                let depth = MAX_DEPTH.saturating_sub(2);
                if let Some(why) = self.text(&reading.shown(inside), depth) {
                    return Some(why);
                }
            }
        }
        None
    }

    /// Records what `words` (a simple command) assigns computed text to;
    /// why it is refused when that is a search path.
    pub(super) fn assigns(&mut self, words: &[String], reading: &Words) -> Option<String> {
        // `IFS=, read a b <<< …`: what the command after its own
        // assignments sets (red team round 62).
        let own = words
            .iter()
            .take_while(|w| crate::binding::wrappers::assignment(w).is_some())
            .count();
        if own > 0
            && own < words.len()
            && let Some(why) = self.assigns(&words[own..], reading)
        {
            return Some(why);
        }
        let first = words.first()?;
        // `read 'a[$(sh …)]'`: a name's subscript is code when it is set
        // (R44-6).
        if matches!(
            first.as_str(),
            "read"
                | "declare"
                | "typeset"
                | "local"
                | "export"
                | "readonly"
                | "let"
                | "printf"
                | "mapfile"
                | "readarray"
                | "unset"
                | "getopts"
        ) && let Some(why) = self.subscripts(&words[1..], reading)
        {
            return Some(why);
        }
        let mut newly = Vec::new();
        let taint = self.taint.clone();
        let is_computed = |word: &str| reading.is_computed(word, &taint);
        match first.as_str() {
            // `for a do`, `for a;`: over the positional parameters (R43-2).
            "for" | "select" if words.len() == 2 || words.get(2).is_some_and(|w| w == "do") => {
                self.taint.count(&words[1]);
                match self.taint.positional {
                    true => newly.push(words[1].clone()),
                    false => {
                        self.taint.looped.insert(words[1].clone());
                    }
                }
            }
            "for" if words.get(2).is_some_and(|w| w == "in") => {
                self.taint.count(&words[1]);
                // `for f in a.sh "$D"/*.sh`: words the reading follows
                // (each bound, or the folder of a glob); a computed or
                // pieced one is not (R42-1).
                // A relative word after a `cd` to a computed folder (`cd
                // "$(…)"; for f in *`: red team round 51, g13) too.
                let moved = |w: &String| self.taint.moved_script(w) && w != "do";
                let list = words[3..].iter().take_while(|w| *w != "do");
                if words[3..].iter().any(|w| is_computed(w)) || list.clone().any(moved) {
                    newly.push(words[1].clone());
                } else {
                    self.taint.looped.insert(words[1].clone());
                }
            }
            "read" | "mapfile" | "readarray" | "getopts" | "coproc" => {
                newly.extend(words[1..].iter().filter(|w| is_name(w)).cloned());
            }
            "printf" => {
                if let Some(i) = words.iter().position(|w| w == "-v") {
                    newly.extend(words.get(i + 1).map(|name| array_name(name)));
                }
                // `printf -vX …` (R41-3).
                let attached = words.iter().filter_map(|w| w.strip_prefix("-v"));
                newly.extend(attached.filter(|n| !n.is_empty()).map(array_name));
                // `printf -v PS4 '$(…)'`: code in the value it sets (R42-5).
                if words.iter().any(|w| w.starts_with("-v"))
                    && words.iter().any(|w| w.contains("$(") || w.contains('`'))
                {
                    return Some(format!(
                        "printf -v sets a variable to code (`{}`)",
                        reading.shown(&words.join(" "))
                    ));
                }
            }
            // `set -- tools g sh`: pieces the text joins later (R41-5).
            "set" if words.len() > 1 && words[1] != "-o" && words[1] != "+o" => {
                let given = words.iter().any(|w| w == "--") || words.len() > 2;
                self.taint.positional |= given && words[1..].iter().any(|w| is_computed(w));
                self.taint.pieces |= given;
            }
            _ => {}
        }
        let declared = matches!(
            first.as_str(),
            "export" | "local" | "declare" | "typeset" | "readonly" | "env"
        );
        // `declare -n ref=name`: a name for another variable (R40-2).
        let nameref = declared
            && words[1..]
                .iter()
                .any(|w| w.starts_with('-') && w.contains('n'));
        let mut refused = None;
        let standalone = declared
            || words
                .iter()
                .all(|w| crate::binding::wrappers::assignment(w).is_some());
        // `env -u FOO BASH_ENV=…`: env's assignments after its options (R42-2).
        let words: Vec<String> = match first.as_str() {
            "env" => words
                .iter()
                .filter(|w| crate::binding::wrappers::assignment(w).is_some())
                .cloned()
                .collect(),
            _ => words.to_vec(),
        };
        let declared = declared && first != "env";
        // `declare -l X=TOOLS/G.SH`: its value changes case when it is set
        // (R43-1); `-u`, `-c` too.
        let cased = declared
            && words[1..].iter().any(|w| {
                w.strip_prefix('-')
                    .is_some_and(|l| !l.starts_with('-') && l.contains(['l', 'u', 'c']))
            });
        for word in words.iter().skip(usize::from(declared)) {
            if declared && word.starts_with(['-', '+']) {
                continue;
            }
            let Some((name, value)) = crate::binding::wrappers::assignment(&array_name(word))
                .or_else(|| {
                    word.split_once("+=")
                        .map(|(n, v)| (n.to_owned(), v.to_owned()))
                })
            else {
                if (nameref || cased) && is_name(word) {
                    newly.push(word.clone());
                    continue;
                }
                break;
            };
            self.taint.assigned.insert(name.clone());
            self.taint.count(&name);
            if cased {
                newly.push(name.clone());
            }
            // `IFS=, ` alone sets it; `IFS= read -r x` only for `read` (R41-8).
            // Blanks only (`IFS=$'\n\t'`) or a saved value put back
            // (`IFS=$OLDIFS`) split no name apart (R42-11).
            let harmless = value
                .trim_start_matches('$')
                .trim_matches('\'')
                .split(r"\")
                .all(|part| {
                    part.chars()
                        .all(|c| c.is_whitespace() || matches!(c, 'n' | 't'))
                })
                || value
                    .trim_matches(['"', '$', '{', '}'])
                    .to_ascii_uppercase()
                    .contains("IFS");
            if name == "IFS" && standalone {
                self.taint.splitting = (!harmless).then(|| word.clone());
            }
            // `PS4='$(…)'; set -x`, `X='a[$(…)]'; : $((X))`: code in a value,
            // run when it is expanded (R41-4).
            if value.contains("$(") || value.contains('`') {
                let depth = MAX_DEPTH.saturating_sub(2);
                if let Some(why) = self.text(&reading.shown(&value), depth) {
                    refused.get_or_insert(why);
                }
            }
            // `HOME=$PWD/tools; sh ~/g.sh`: the environment's places reset.
            if ENVIRONMENT.contains(&name.as_str()) {
                newly.push(name.clone());
            }
            // An array (`a=(…)`), a name for another: read as computed. A
            // search path's folders each lead their element (`$PATH:$(go
            // env GOPATH)/bin`).
            let search_path = SEARCH_PATHS.contains(&name.as_str());
            // An array of plain words (`cmd=(npx prettier)`) names what the
            // text shows (R42-12).
            let array = value.starts_with('(') && (value.contains('$') || value.contains('`'));
            let computed = array
                || nameref
                || match search_path {
                    true => value
                        .split(':')
                        .any(|w| reading.holds_run_time_text(w, &taint)),
                    false => reading.holds_run_time_text(&value, &taint),
                };
            if computed {
                newly.push(name.clone());
            } else if super::pieces::pieced(&value, &taint) {
                // `PY=${PYTHON:-python3}`: a program's name on `PATH` as
                // the environment chooses; no file's name (R42-1).
                self.taint.plain.remove(&name);
            } else {
                self.taint.plain.insert(name.clone());
                // A positional parameter (`local d=$1`) kept as written: a
                // write through it is read by the calls (round 51, x41).
                let positional = value.len() == 2 && value.starts_with('$')
                    || value.starts_with("${") && value.len() == 4;
                if !value.contains(['$', '`', '(']) || positional {
                    self.taint.values.insert(name.clone(), value.clone());
                }
            }
            if search_path && computed {
                refused.get_or_insert(format!(
                    "{name} is set to text computed when it runs (`{}`)",
                    reading.shown(word)
                ));
            }
        }
        self.taint.variables.extend(newly);
        refused
    }
}
