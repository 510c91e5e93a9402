//! What a plugin registered, compared across worker restarts.
//!
//! Callback ids name the callback (`<plugin>:<event>:<qualname>`, with `#n`
//! only among callbacks of the same name), so a plugin that registers in
//! another order after a restart (from a `set`, say) still has each id point
//! at the same function. What cannot be matched that way is a difference:
//! another set of hooks, another function behind the same name (its source
//! location moved), other sections. The plugin is then failed, never rewired.

use super::host::LoadReport;

/// How `after` differs from `before`, or `None` when it registered the same.
pub(crate) fn difference(before: &LoadReport, after: &LoadReport) -> Option<String> {
    let hooks = |report: &LoadReport| {
        let mut hooks: Vec<String> = report
            .hooks
            .iter()
            .map(|hook| {
                format!(
                    "{} ({} at {})",
                    hook.callback,
                    hook.name,
                    if hook.location.is_empty() {
                        "?"
                    } else {
                        &hook.location
                    }
                )
            })
            .collect();
        hooks.sort();
        hooks
    };
    let sections = |report: &LoadReport| {
        let mut sections: Vec<String> = report
            .sections
            .iter()
            .map(|section| {
                format!(
                    "{} ({})",
                    section.id,
                    section.callback.as_deref().unwrap_or("text")
                )
            })
            .collect();
        sections.sort();
        sections
    };
    let (old, new) = (hooks(before), hooks(after));
    if old != new {
        let gone: Vec<&String> = old.iter().filter(|h| !new.contains(h)).collect();
        let added: Vec<&String> = new.iter().filter(|h| !old.contains(h)).collect();
        return Some(format!(
            "it registered other hooks after the worker restarted (no longer: {}; new: {})",
            list(&gone),
            list(&added)
        ));
    }
    if sections(before) != sections(after) {
        return Some(
            "it registered other system prompt sections after the worker restarted".to_owned(),
        );
    }
    None
}

fn list(items: &[&String]) -> String {
    if items.is_empty() {
        "none".to_owned()
    } else {
        items
            .iter()
            .map(|item| item.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::python::HookSpec;

    fn hook(event: &str, name: &str, location: &str) -> HookSpec {
        HookSpec {
            event: event.to_owned(),
            callback: format!("guard:{event}:{name}"),
            name: name.to_owned(),
            location: location.to_owned(),
        }
    }

    fn report(hooks: Vec<HookSpec>) -> LoadReport {
        LoadReport {
            hooks,
            ..LoadReport::default()
        }
    }

    #[test]
    fn another_order_is_the_same_registration() {
        let a = report(vec![
            hook("pre_tool_call", "check", "g.py:3"),
            hook("post_tool_call", "log", "g.py:9"),
        ]);
        let b = report(vec![
            hook("post_tool_call", "log", "g.py:9"),
            hook("pre_tool_call", "check", "g.py:3"),
        ]);
        assert_eq!(difference(&a, &b), None);
    }

    #[test]
    fn another_function_or_set_of_hooks_is_a_difference() {
        let a = report(vec![hook("pre_tool_call", "<lambda>", "g.py:3")]);
        let moved = report(vec![hook("pre_tool_call", "<lambda>", "g.py:4")]);
        let why = difference(&a, &moved).expect("differs");
        assert!(why.contains("g.py:3") && why.contains("g.py:4"), "{why}");
        let none = report(Vec::new());
        let why = difference(&a, &none).expect("differs");
        assert!(why.contains("new: none"), "{why}");
    }
}
