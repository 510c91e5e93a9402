//! The automatic variables of a makefile rule written out (`$@`, `$<`,
//! `$^`, `$+`): what make gives them is the text written (red team round
//! 62, U-2: an ordinary `sh $<` could not be approved).

/// The first target and the prerequisites of the rule `line` starts, when
/// both are written out (no variable, pattern or second colon: what make
/// gives `$@`, `$<` and `$^` then is what is written).
pub(super) fn written_rule(line: &str) -> Option<(String, Vec<String>)> {
    let head = line.split(';').next().unwrap_or(line);
    let (targets, prerequisites) = head.split_once(':')?;
    if prerequisites.starts_with([':', '=']) || head.contains(['$', '%', '=']) {
        return None;
    }
    let target = targets.split_whitespace().next()?.to_owned();
    let prerequisites = prerequisites.split_whitespace().filter(|word| *word != "|");
    Some((target, prerequisites.map(str::to_owned).collect()))
}

/// `recipe` with the automatic variables of its written `rule` put in
/// (`sh $<` of `lint: tools/a.sh` is `sh tools/a.sh`: red team round 62,
/// U-2); left as they are without one (then a name they give is computed).
pub(super) fn automatic(recipe: &str, rule: Option<&(String, Vec<String>)>) -> String {
    let Some((target, prerequisites)) = rule else {
        return recipe.to_owned();
    };
    let quoted = |word: &str| shlex::try_quote(word).map(|q| q.into_owned()).ok();
    let Some(target) = quoted(target) else {
        return recipe.to_owned();
    };
    let all: Option<Vec<String>> = prerequisites.iter().map(|p| quoted(p)).collect();
    let Some(all) = all else {
        return recipe.to_owned();
    };
    let first = all.first().cloned().unwrap_or_default();
    let mut text = recipe.to_owned();
    for (names, value) in [
        (["$@", "$(@)", "${@}"], &target),
        (["$<", "$(<)", "${<}"], &first),
        (["$^", "$(^)", "${^}"], &all.join(" ")),
        (["$+", "$(+)", "${+}"], &all.join(" ")),
    ] {
        for name in names {
            // `$$<` is the shell's `$<`, no variable of make's.
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(at) = rest.find(name) {
                let escaped = rest[..at].ends_with('$')
                    && rest[..at].chars().rev().take_while(|c| *c == '$').count() % 2 == 1;
                out.push_str(&rest[..at]);
                out.push_str(if escaped { name } else { value });
                rest = &rest[at + name.len()..];
            }
            out.push_str(rest);
            text = out;
        }
    }
    text
}
