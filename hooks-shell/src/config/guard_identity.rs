//! What tells one of `config.yaml`'s fail-closed guards apart from its
//! others, kept in its guard record: a file cut short that still reads as
//! YAML may keep a guard with its matcher cut to fewer tools, and only the
//! guard's identity tells (red team round 78, R78-2). A guard read with no
//! matcher at all guards every call: the same guard, wider, not lost (round
//! 79: deleting a last-line matcher on purpose kept blocking).

use hermes_hooks_core::HookEvent;
use sha2::{Digest, Sha256};

use super::ShellHookSpec;
use crate::guard_record::Guard;

/// A guard's identity: `<command part>.<matcher part>`, the digests of its
/// event and command, and of its matcher.
pub(super) fn identity(spec: &ShellHookSpec) -> String {
    let command = digest(&[spec.event.as_str(), &spec.command]);
    let matcher = digest(&[
        spec.matcher.pattern().unwrap_or(""),
        spec.unusable_matcher.as_deref().unwrap_or(""),
    ]);
    format!("{command}.{matcher}")
}

/// How many `recorded` `pre_tool_call` guards `now` does not hold as they
/// were, or wider (each of `now` stands for one).
pub(super) fn not_read_as_recorded(recorded: &[Guard], now: &[Guard]) -> usize {
    let every_call = digest(&["", ""]);
    let holds = |now: &Guard, was: &Guard| {
        let (now_command, now_matcher) = now.1.split_once('.').unwrap_or((&now.1, ""));
        let (was_command, _) = was.1.split_once('.').unwrap_or((&was.1, ""));
        now == was || (now.0 == was.0 && now_command == was_command && now_matcher == every_call)
    };
    let mut unmatched: Vec<&Guard> = now.iter().collect();
    let recorded = recorded
        .iter()
        .filter(|guard| guard.0 == HookEvent::PreToolCall);
    recorded
        .filter(
            |was| match unmatched.iter().position(|now| holds(now, was)) {
                Some(at) => {
                    unmatched.swap_remove(at);
                    false
                }
                None => true,
            },
        )
        .count()
}

/// A short digest of `parts`, told apart by their boundaries.
fn digest(parts: &[&str]) -> String {
    let mut digest = Sha256::new();
    for part in parts {
        digest.update(part.len().to_le_bytes());
        digest.update(part.as_bytes());
    }
    hex::encode(&digest.finalize()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(command: &str, matcher: Option<&str>) -> Guard {
        let mut spec = ShellHookSpec::new(HookEvent::PreToolCall, command, "/home");
        if let Some(matcher) = matcher {
            spec.matcher = hermes_hooks_core::matcher::ToolMatcher::build(Some(matcher)).matcher;
        }
        (HookEvent::PreToolCall, identity(&spec))
    }

    #[test]
    fn a_narrowed_guard_is_lost_and_a_widened_one_is_not() {
        let was = [guard("g.sh", Some("read_file|terminal"))];
        assert_eq!(
            not_read_as_recorded(&was, &[guard("g.sh", Some("read_file"))]),
            1
        );
        assert_eq!(not_read_as_recorded(&was, &[guard("g.sh", None)]), 0);
        assert_eq!(not_read_as_recorded(&was, &was), 0);
        assert_eq!(not_read_as_recorded(&was, &[guard("g2.sh", None)]), 1);
        let twice = [was[0].clone(), was[0].clone()];
        assert_eq!(not_read_as_recorded(&twice, &was), 1);
    }
}
