//! Red team round 77 (issue 27's acceptance sweep), through the real
//! binary: a `config.yaml` cut short mid-write, with no newline at its end,
//! still read as YAML, its fail-closed guard's `fail_closed` or matcher
//! cut away, and the next call was allowed without a word (R77-1); one cut
//! exactly at a line's end did too.

/// The user's config.yaml of one fail-closed `terminal` guard running
/// `guard`, with `fail_closed` written before the matcher when
/// `closed_first`.
fn guard_file(guard: &std::path::Path, closed_first: bool) -> String {
    let (first, second) = match closed_first {
        true => ("fail_closed: true", "matcher: terminal"),
        false => ("matcher: terminal", "fail_closed: true"),
    };
    format!(
        "hooks_from: []\nhooks:\n  pre_tool_call:\n    - command: {}\n      {first}\n      timeout: 10\n      {second}\n",
        guard.display()
    )
}

#[test]
fn a_config_yaml_cut_short_mid_line_keeps_its_guard_blocking() {
    // Cut inside the matcher written last, before `fail_closed` written
    // last (inside `timeout`), and inside the command: whether
    // `fail_closed` comes first, the text the cut falls in, what is kept.
    let cuts = [
        (true, "matcher: terminal", "matcher: term".len()),
        (false, "timeout: 10", "timeout: 1".len()),
        (false, "/crash.sh", "/cra".len()),
    ];
    for (closed_first, marker, kept) in cuts {
        let cut_at = |text: &str| text.find(marker).expect("marker") + kept;
        let (home, project) = crate::dialects::home_with("[]");
        let guard = home.script("crash.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n");
        let text = guard_file(&guard, closed_first);
        home.config(&text);
        assert_eq!(crate::round75::action(&home, &project, None, true), "block");
        home.config(&text[..cut_at(&text)]);
        let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
        assert_eq!(
            action,
            "block",
            "cut to {:?}: {warnings}",
            &text[..cut_at(&text)]
        );
        if !closed_first {
            continue;
        }
        // Ended with a newline (a change made on purpose), it is read as
        // written: a matcher naming no tool, warned.
        let mut ended = text[..cut_at(&text)].to_owned();
        ended.push('\n');
        home.config(&ended);
        let (_, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
        assert!(!warnings.contains("ends inside a line"), "{warnings}");
        assert!(warnings.contains("NEVER RUNS"), "{warnings}");
    }
}

/// Approves the guards of `text` (the user's config.yaml), then writes
/// each head of it cut at a line's end: every one blocks, read twice.
fn every_line_end_cut_blocks(
    home: &crate::support::TempHome,
    project: &std::path::Path,
    text: &str,
) {
    home.config(text);
    assert_eq!(crate::round75::action(home, project, None, true), "block");
    let line_ends = text.match_indices('\n').map(|(at, _)| at + 1);
    for cut in line_ends
        .filter(|end| *end < text.len())
        .map(|end| &text[..end])
    {
        home.config(cut);
        for read in ["first", "second"] {
            let (action, warnings) =
                crate::round74::action_and_warnings(home, project, None, false);
            assert_eq!(action, "block", "{read} read of {cut:?}: {warnings}");
        }
    }
}

/// A `config.yaml` cut exactly at a line's end reads as YAML, every line
/// whole, what came after the cut gone: a guard's `fail_closed`, its
/// matcher, or the whole `hooks:` section read as taken out on purpose and
/// the call was allowed (round 77's two cut points left open). A read that
/// is the head of the last good one, and lost a guard, keeps blocking,
/// read after read; any other change lifts it.
#[test]
fn a_config_yaml_cut_at_a_line_end_keeps_its_guard_blocking() {
    for closed_first in [true, false] {
        let (home, project) = crate::dialects::home_with("[]");
        let guard = home.script("crash.sh", "#!/bin/sh\ncat >/dev/null\nexit 1\n");
        let text = guard_file(&guard, closed_first);
        every_line_end_cut_blocks(&home, &project, &text);
        // The guard taken out on purpose, a line after it: read as written.
        home.config("hooks_from: []\n# the guard is gone\n");
        let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
        assert_eq!(action, "allow", "{warnings}");
        assert!(!warnings.contains("cut at"), "{warnings}");
    }
}

/// The same cut, of `hooks_from:`: a `config.yaml` cut before the list, or
/// inside a list in block style, dropped a format whose user file held a
/// fail-closed guard, and read as the format taken out on purpose.
#[test]
fn a_config_yaml_cut_at_a_line_end_keeps_an_imported_guard_blocking() {
    let lists = [
        "model: x\nhooks_from: [claude]\n",
        "model: x\nhooks_from:\n  - codex\n  - claude\n",
    ];
    for text in lists {
        let (home, project) = crate::dialects::home_with("[claude]");
        crate::round79::user_claude_crash_guard(&home);
        every_line_end_cut_blocks(&home, &project, text);
        home.config("model: x\n# no hooks from other agents\n");
        let (action, warnings) = crate::round74::action_and_warnings(&home, &project, None, false);
        assert_eq!(action, "allow", "{warnings}");
    }
}

/// `hooks test` counts, in its heading, every hook it lists: a fresh
/// clone's two unapproved hooks were listed as skipped under "Firing 0
/// hooks" (R77-U3).
#[test]
fn hooks_test_counts_the_skipped_hooks_it_lists() {
    let (home, project) = crate::dialects::home_with("[claude]");
    let settings = serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "echo one"},
        {"type": "command", "command": "echo two"}
    ]}]}});
    crate::dialects::write(&project, ".claude/settings.json", &settings.to_string());
    let text = crate::dialects::in_project(&home, &project, &["test", "pre_tool_call"]).stdout();
    assert_eq!(text.matches("skipped").count(), 2, "{text}");
    assert!(text.contains("Firing 2 hooks for"), "{text}");
}

/// A user `config.yaml` that cannot be read (a tab, a second document, a
/// folder) made `emit --json` exit 2 with no JSON: a host reading only the
/// document saw nothing (R77-U4). It now reads the error and, for
/// `pre_tool_call`, a block; the status is still 2.
#[test]
fn emit_json_with_an_unreadable_config_still_prints_a_blocking_outcome() {
    // The file's text, or `None` for a folder in its place.
    let broken = [
        Some("hooks:\n\tpre_tool_call: []\n"),
        Some("hooks: {}\n---\nhooks: {}\n"),
        None,
    ];
    for (case, text) in broken.into_iter().enumerate() {
        let (home, project) = crate::dialects::home_with("[]");
        let file = home.hermes.join("config.yaml");
        match text {
            Some(text) => std::fs::write(&file, text).expect("config"),
            None => {
                std::fs::remove_file(&file).ok();
                std::fs::create_dir(&file).expect("a folder");
            }
        }
        let output = crate::dialects::emit_terminal_command(&home, &project, None, "ls", true)
            .output()
            .expect("hooks runs");
        assert_eq!(output.status.code(), Some(2), "case {case}");
        let document: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("a JSON document");
        assert_eq!(
            document["outcome"]["action"], "block",
            "case {case}: {document}"
        );
        let error = document["error"].as_str().expect("the error");
        assert!(error.contains("config.yaml"), "case {case}: {error}");
        // Other events: the error, and no outcome.
        let args = ["emit", "post_tool_call", "--json"];
        let output = crate::harness::command(&home, &args)
            .output()
            .expect("hooks runs");
        assert_eq!(output.status.code(), Some(2), "case {case}");
        let document: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("a JSON document");
        assert!(document["outcome"].is_null(), "case {case}: {document}");
        assert!(document["error"].is_string(), "case {case}: {document}");
    }
}
