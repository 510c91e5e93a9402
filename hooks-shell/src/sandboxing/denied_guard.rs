//! A fail-closed guard its sandbox denied something it needed (red team
//! round 7, R7b-8): a guard that reads its rules from a file the profile
//! does not read (`while read -r pat; do ...; done < ~/.config/x/deny.txt`
//! under `strict`) sees no rule, exits 0 and answers nothing. A denial must
//! never turn a guard into an allow, so a fail-closed run whose stderr shows
//! a sandbox denial and whose answer does not block is a failure: the call
//! is blocked with a message naming what was denied and what to do.
//!
//! stderr is the hook's to silence (`curl ... 2>/dev/null || exit 0`,
//! `try: ... except: sys.exit(0)`: red team round 7, R7c-3), so the
//! kernel's record of a fail-closed hook's run counts too: the inet
//! sockets its tree asked for where the profile keeps no network
//! ([`RunResult::network_attempts`]), and the first path of the host's
//! `/tmp` it looked up that its private `/tmp` hid
//! ([`RunResult::hidden_tmp`]: rules in `/tmp/guard-rules.txt`, a `chdir`
//! there, a program run from there), the first path of the host it opened
//! to read or ran beneath no root its profile grants
//! ([`RunResult::denied_path`]: rules in `/srv/policy/rules` under
//! `project`), and the first unix socket of the host its sandbox kept it
//! from, connected or sent a datagram to ([`RunResult::denied_unix_socket`]:
//! a policy daemon in `/run/user/<uid>`, an abstract one; red team round 9,
//! R9-4). Other filesystem denials (Landlock's beneath a granted root, a
//! read-only mount's) still have only stderr to show them (see
//! `docs/decisions/sandboxed-hooks.md`).
//!
//! The one place every dialect asks: the native reading of a run
//! ([`crate::reply::evaluate`]), the imported one
//! ([`crate::dialect::reply::interpret`]), and both run records (through
//! [`super::annotate`]). A fail-open hook keeps the diagnostic only.

use hermes_hooks_process::sandbox::denials;

use crate::run::RunResult;

/// Why a run of a hook that `fails_closed` fails although it answered,
/// its answer not a `block`: its stdout passed the cap, so what was kept is
/// not its whole answer (red team round 11, R11-9: an allow, 2 MB of
/// blanks, then a deny), or a process it started still held stdout after
/// the pipe grace (round 74, R74-1); or its sandbox denied an access its stderr shows
/// or one the kernel recorded. `None` for a fail-open hook, an answer that
/// blocks, or a run read whole that was denied nothing.
pub(crate) fn guard_failure(
    fails_closed: bool,
    blocks: bool,
    result: &RunResult,
) -> Option<String> {
    if !fails_closed || blocks {
        return None;
    }
    if result.stdout_truncated {
        return Some(format!(
            "its answer passed {} bytes and was cut, so it cannot be read whole",
            crate::run::OUTPUT_CAP_BYTES
        ));
    }
    if result.stdout_cut {
        // `echo '{"decision":"block"}' > >(sleep 1; cat)`: the answer came
        // after the guard exited, from a process it did not wait for
        // (round 74, R74-1).
        return Some(
            "a process it started still held its output when its time ran out, so its \
             answer cannot be read whole: wait for what writes the answer before exiting, \
             and start background jobs with their output redirected \
             (`job >/dev/null 2>&1 &`)"
                .to_owned(),
        );
    }
    denial_reason(result)
}

/// The first access the sandbox of `result` denied it, as a reason: the
/// profile, the denied path (or the stderr line when it names none) and
/// what to do about it; else what the kernel recorded (a host `/tmp` path,
/// a path outside the profile, a unix socket, the network). `None` outside a sandbox, or without a
/// denial.
pub(crate) fn denial_reason(result: &RunResult) -> Option<String> {
    let profile = result.sandbox.as_deref()?;
    let Some(denial) = denials(&result.stderr).into_iter().next() else {
        return recorded_reason(profile, result);
    };
    let path = denied_path(&denial.line);
    let what = match path {
        Some(path) => format!("{path} ({})", denial.kind),
        None => format!("an access ({}: {})", denial.kind, denial.line),
    };
    let advice = match (denial.kind, path) {
        ("filesystem", Some(_)) => {
            "list it (or its folder) in the `read` of a sandbox map \
             (`sandbox: {read: [...]}`; `write` if the guard writes it)"
        }
        ("read-only", Some(_)) => {
            "list it (or its folder) in the `write` of a sandbox map (`sandbox: {write: [...]}`)"
        }
        ("network", _) => "give it a sandbox map with `network: true`",
        _ => "give it a sandbox map that allows what it needs",
    };
    Some(format!(
        "its sandbox '{profile}' denied {what}; a guard denied what it needs \
         never allows: {advice}, or run the guard with `sandbox: none`"
    ))
}

/// The reason the kernel's record of `result` gives: a path of the host's
/// `/tmp` its private `/tmp` hid, else a path its Landlock ruleset denied,
/// else a unix socket it was kept from, else
/// inet sockets asked for although its `profile` keeps no network (`None`:
/// none of these).
fn recorded_reason(profile: &str, result: &RunResult) -> Option<String> {
    let (what, advice) = if let Some(path) = &result.hidden_tmp {
        let path = path.display();
        (
            format!("hid the host's {path} (its `/tmp` is a private one)"),
            format!(
                "list it in the `read` of a sandbox map (`sandbox: {{read: [{path}]}}`: \
                 `/tmp` is then the host's, its sockets masked)"
            ),
        )
    } else if let Some(path) = &result.denied_path {
        let path = path.display();
        (
            format!("denied {path} (outside every path it may read)"),
            format!(
                "list it (or its folder) in the `read` of a sandbox map \
                 (`sandbox: {{read: [{path}]}}`)"
            ),
        )
    } else if let Some(socket) = &result.denied_unix_socket {
        socket_denial(socket)
    } else if result.network_attempts > 0 {
        (
            format!(
                "denied network access ({} inet socket(s) asked for)",
                result.network_attempts
            ),
            "give it a sandbox map with `network: true` (`sandbox: {network: true}`)".to_owned(),
        )
    } else {
        return None;
    };
    Some(format!(
        "its sandbox '{profile}' {what}, as the kernel recorded whatever the guard \
         printed; a guard denied what it needs never allows: {advice}, or run the guard \
         with `sandbox: none`"
    ))
}

/// What was denied and the map that helps, for the unix `socket` recorded
/// (`@name`: an abstract one, which goes with the network).
fn socket_denial(socket: &str) -> (String, String) {
    if socket.starts_with('@') {
        (
            format!(
                "denied the abstract unix socket {socket} (abstract sockets go with the network)"
            ),
            "give it a sandbox map with `network: true` (`sandbox: {network: true}`)".to_owned(),
        )
    } else {
        (
            format!(
                "kept the unix socket {socket} from it (masked, or hidden by its private `/tmp`)"
            ),
            format!("list it in the `read` of a sandbox map (`sandbox: {{read: [{socket}]}}`)"),
        )
    }
}

/// The diagnostics of the kernel's record of `result` (run in `profile`).
pub(crate) fn recorded(profile: &str, result: &RunResult) -> Vec<String> {
    let mut said = Vec::new();
    if let Some(path) = &result.hidden_tmp {
        let path = path.display();
        said.push(format!(
            "sandbox '{profile}' hid (tmp): {path} of the host's /tmp"
        ));
    }
    if let Some(path) = &result.denied_path {
        let path = path.display();
        said.push(format!(
            "sandbox '{profile}' denied (filesystem): {path}, outside every path it may read"
        ));
    }
    if let Some(socket) = &result.denied_unix_socket {
        said.push(format!(
            "sandbox '{profile}' denied (unix socket): {socket}"
        ));
    }
    if result.network_attempts > 0 {
        let attempts = result.network_attempts;
        said.push(format!(
            "sandbox '{profile}' denied (network): {attempts} inet socket(s) asked for"
        ));
    }
    said
}

/// The path a denial line names: its last word that is an absolute path,
/// stripped of quotes and punctuation (`sh: 5: cannot open /a/b: Permission
/// denied`, `PermissionError: [Errno 13] Permission denied: '/a/b'`).
fn denied_path(line: &str) -> Option<&str> {
    const AROUND: &[char] = &['\'', '"', '`', ':', ',', ';', '(', ')', '[', ']', '‘', '’'];
    line.split_whitespace()
        .map(|word| word.trim_matches(AROUND))
        .rfind(|word| word.starts_with('/') && word.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandboxed(stderr: &str) -> RunResult {
        RunResult {
            sandbox: Some("strict".to_owned()),
            ..RunResult::exited(0, "", stderr)
        }
    }

    #[test]
    fn the_denied_path_is_the_last_absolute_path_of_the_line() {
        let cases = [
            (
                "sh: 5: cannot open /h/.config/g/deny.txt: Permission denied",
                "/h/.config/g/deny.txt",
            ),
            ("/bin/sh: 1: cannot open /h/x: Permission denied", "/h/x"),
            (
                "/h/.claude/hooks/g.sh: line 4: /h/x: Permission denied",
                "/h/x",
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/h/x'",
                "/h/x",
            ),
            ("touch: cannot touch '/h/y': Read-only file system", "/h/y"),
        ];
        for (line, path) in cases {
            assert_eq!(denied_path(line), Some(path), "{line}");
        }
        assert_eq!(denied_path("cat: x: Permission denied"), None);
    }

    #[test]
    fn only_a_fail_closed_run_that_does_not_block_fails_on_a_denial() {
        let denied = sandboxed("sh: 5: cannot open /h/.config/g/deny.txt: Permission denied\n");
        let why = guard_failure(true, false, &denied).expect("fails");
        assert!(
            why.contains("'strict' denied /h/.config/g/deny.txt (filesystem)"),
            "{why}"
        );
        assert!(
            why.contains("`read`") && why.contains("`sandbox: none`"),
            "{why}"
        );
        assert_eq!(guard_failure(false, false, &denied), None);
        assert_eq!(guard_failure(true, true, &denied), None);
        assert_eq!(guard_failure(true, false, &sandboxed("all fine\n")), None);
        let outside = RunResult::exited(0, "", "cat: /h/x: Permission denied\n");
        assert_eq!(guard_failure(true, false, &outside), None);
    }

    #[test]
    fn the_kernels_record_fails_a_silent_guard_that_does_not_block() {
        let silent = RunResult {
            network_attempts: 2,
            ..sandboxed("")
        };
        let why = guard_failure(true, false, &silent).expect("fails");
        for words in [
            "'strict' denied network access (2 inet",
            "`sandbox: {network: true}`",
            "`sandbox: none`",
        ] {
            assert!(why.contains(words), "{words}: {why}");
        }
        assert_eq!(guard_failure(false, false, &silent), None);
        assert_eq!(guard_failure(true, true, &silent), None);
        let hidden = RunResult {
            hidden_tmp: Some("/tmp/g-rules.txt".into()),
            ..silent.clone()
        };
        let why = guard_failure(true, false, &hidden).expect("fails");
        for words in [
            "'strict' hid the host's /tmp/g-rules.txt",
            "`sandbox: {read: [/tmp/g-rules.txt]}`",
        ] {
            assert!(why.contains(words), "{words}: {why}");
        }
        assert_eq!(recorded("strict", &hidden).len(), 2);
        let outside = RunResult {
            denied_path: Some("/srv/g/rules".into()),
            ..silent.clone()
        };
        let why = guard_failure(true, false, &outside).expect("fails");
        for words in [
            "'strict' denied /srv/g/rules (outside every path it may read)",
            "`sandbox: {read: [/srv/g/rules]}`",
            "`sandbox: none`",
        ] {
            assert!(why.contains(words), "{words}: {why}");
        }
        let said = recorded("strict", &outside);
        assert!(
            said.contains(&"sandbox 'strict' denied (filesystem): /srv/g/rules, outside every path it may read".to_owned()),
            "{said:?}"
        );
        assert_eq!(guard_failure(true, true, &outside), None);
        for (socket, words) in [
            (
                "/run/user/7/policy.sock",
                [
                    "'strict' kept the unix socket /run/user/7/policy.sock from it",
                    "`sandbox: {read: [/run/user/7/policy.sock]}`",
                ],
            ),
            (
                "@acme-policy",
                [
                    "'strict' denied the abstract unix socket @acme-policy",
                    "`sandbox: {network: true}`",
                ],
            ),
        ] {
            let kept = RunResult {
                denied_unix_socket: Some(socket.to_owned()),
                ..silent.clone()
            };
            let why = guard_failure(true, false, &kept).expect("fails");
            for words in words.iter().chain(&["`sandbox: none`"]) {
                assert!(why.contains(words), "{words}: {why}");
            }
            let said = recorded("strict", &kept);
            assert!(
                said.contains(&format!("sandbox 'strict' denied (unix socket): {socket}")),
                "{said:?}"
            );
            assert_eq!(guard_failure(true, true, &kept), None);
        }
        // A stderr denial names its path first.
        let both = RunResult {
            network_attempts: 1,
            ..sandboxed("cat: /h/rules: Permission denied\n")
        };
        let why = guard_failure(true, false, &both).expect("fails");
        assert!(why.contains("/h/rules (filesystem)"), "{why}");
    }
}
