//! The typed replies against their wire shapes and the merge's readings.

use serde_json::{Map, json};

use super::*;

#[test]
fn tool_decisions_round_trip_through_the_wire() {
    let mut args = Map::new();
    args.insert("x".into(), 1.into());
    for decision in [
        ToolDecision::block("no"),
        ToolDecision::approve("sure?"),
        ToolDecision::modify(args),
    ] {
        let wire = decision.clone().into_wire();
        assert_eq!(
            wire.as_ref().and_then(ToolDecision::from_wire),
            Some(decision)
        );
    }
    assert_eq!(ToolDecision::Allow.into_wire(), None);
}

#[test]
fn replies_the_merge_ignores_parse_to_none() {
    for ignored in [
        json!("block"),
        json!({"action": "block"}),
        json!({"action": "block", "message": ""}),
        json!({"action": "block", "message": 42}),
        json!({"action": "modify", "args": [1]}),
        json!({"action": "other"}),
        json!({"decision": "block"}),
    ] {
        assert_eq!(ToolDecision::from_wire(&ignored), None, "{ignored}");
    }
    assert_eq!(
        ToolDecision::from_wire(&json!({"action": "approve", "rule_key": "  k  ", "message": ""})),
        Some(ToolDecision::Approve {
            message: None,
            rule_key: Some("k".into())
        })
    );
}

#[test]
fn dispatch_replies_read_as_the_merge_reads_them() {
    for reply in [
        DispatchReply::Skip {
            reason: Some("spam".into()),
        },
        DispatchReply::Skip { reason: None },
        DispatchReply::Rewrite { text: "t".into() },
        DispatchReply::Allow,
    ] {
        assert_eq!(
            DispatchReply::from_wire(&reply.clone().into_wire()),
            Reading::Decides(reply)
        );
    }
    assert_eq!(
        DispatchReply::from_wire(&json!({"action": "skip", "reason": 3})),
        Reading::Decides(DispatchReply::Skip {
            reason: Some("3".into())
        })
    );
    assert_eq!(
        DispatchReply::from_wire(&json!({"action": "rewrite", "text": 5})),
        Reading::Void
    );
    for ignored in [
        json!("skip"),
        json!({"action": "Skip"}),
        json!({"action": 1}),
    ] {
        assert_eq!(DispatchReply::from_wire(&ignored), Reading::Ignored);
    }
}

#[test]
fn command_replies_read_as_the_merge_reads_them() {
    for reply in [
        CommandReply::Deny {
            message: Some("no".into()),
        },
        CommandReply::Deny { message: None },
        CommandReply::Handled { message: None },
        CommandReply::Rewrite {
            command: "help".into(),
            args: "me".into(),
        },
    ] {
        assert_eq!(
            CommandReply::from_wire(&reply.clone().into_wire()),
            Some(reply)
        );
    }
    assert_eq!(
        CommandReply::from_wire(
            &json!({"decision": " Rewrite ", "command_name": " //new ", "raw_args": null})
        ),
        Some(CommandReply::Rewrite {
            command: "new".into(),
            args: String::new()
        })
    );
    for ignored in [
        json!({"decision": "allow"}),
        json!({"decision": ""}),
        json!({"decision": "rewrite", "command_name": " / "}),
        json!({"message": "no decision"}),
        json!("deny"),
    ] {
        assert_eq!(CommandReply::from_wire(&ignored), None, "{ignored}");
    }
}

#[test]
fn continue_and_transcription_replies_read_as_the_merge_reads_them() {
    assert_eq!(
        ContinueReply::from_wire(&ContinueReply::new("go on").into_wire()),
        Some(ContinueReply::new("go on"))
    );
    assert_eq!(
        ContinueReply::from_wire(
            &json!({"action": "", "decision": "BLOCK", "message": "", "reason": "  more  "})
        ),
        Some(ContinueReply::new("more"))
    );
    for ignored in [
        json!({"action": "stop", "message": "m"}),
        json!({"action": "continue", "message": "   "}),
        json!({"action": "continue", "message": 3}),
    ] {
        assert_eq!(ContinueReply::from_wire(&ignored), None, "{ignored}");
    }
    let read = TranscriptionReply::from_wire(
        &json!({"prompt": "", "language": 3, "model": "m", "file_path": "/x"}),
    );
    assert_eq!(
        read,
        Some(TranscriptionReply {
            prompt: Some(String::new()),
            language: None,
            model: Some("m".into())
        })
    );
    assert_eq!(
        TranscriptionReply::from_wire(&json!({"file_path": "/x"})),
        None
    );
    let mut merged = read.unwrap_or_default();
    merged.overlay(TranscriptionReply {
        prompt: Some("p".into()),
        ..TranscriptionReply::default()
    });
    assert_eq!(merged.prompt.as_deref(), Some("p"));
    assert_eq!(merged.model.as_deref(), Some("m"));
}

/// The one encoding of each decision fits the schema hook authors read, and
/// so do the words the merges pass over by design (a command's `allow`).
#[test]
fn every_typed_reply_fits_its_rules_generated_schema() {
    use crate::catalog::MergeRule;
    use crate::schemas::check_reply;
    let mut args = Map::new();
    args.insert("x".into(), 1.into());
    let mut wires = vec![
        (MergeRule::ToolGate, ToolDecision::block("no").into_wire()),
        (
            MergeRule::ToolGate,
            ToolDecision::Approve {
                message: Some("sure?".into()),
                rule_key: Some("k".into()),
            }
            .into_wire(),
        ),
        (MergeRule::ToolGate, ToolDecision::modify(args).into_wire()),
        (
            MergeRule::VerifyContinue,
            Some(ContinueReply::new("go").into_wire()),
        ),
        (
            MergeRule::TranscriptionFields,
            TranscriptionReply {
                prompt: Some(String::new()),
                language: Some("ja".into()),
                model: Some("m".into()),
            }
            .into_wire(),
        ),
        (
            MergeRule::CommandDecision,
            Some(json!({"decision": "allow"})),
        ),
    ];
    for reply in [
        DispatchReply::Skip { reason: None },
        DispatchReply::Rewrite { text: "t".into() },
        DispatchReply::Allow,
    ] {
        wires.push((MergeRule::GatewayDispatch, Some(reply.into_wire())));
    }
    for reply in [
        CommandReply::Deny { message: None },
        CommandReply::Handled {
            message: Some("done".into()),
        },
        CommandReply::Rewrite {
            command: "help".into(),
            args: String::new(),
        },
    ] {
        wires.push((MergeRule::CommandDecision, Some(reply.into_wire())));
    }
    for (rule, wire) in wires {
        let wire = wire.expect("a decision has a wire shape");
        let problems = check_reply(rule, &wire);
        assert!(
            problems.is_empty(),
            "{} {wire}: {problems:?}",
            rule.as_str()
        );
    }
}

#[test]
fn classifications_read_sanitised_as_the_merge_keeps_them() {
    let read = ClassificationReply::from_wire(&json!({
        "reason": " Rate_Limit ",
        "retryable": 1,
        "should_compress": null,
        "should_fallback": "",
        "message": format!("  {}  ", "x".repeat(600)),
        "error_context": [1],
        "extra": true,
    }))
    .expect("a valid classification");
    assert_eq!(read.reason, "rate_limit");
    assert_eq!(read.retryable, Some(true));
    assert_eq!(read.should_compress, None);
    assert_eq!(read.should_fallback, Some(false));
    assert_eq!(read.message.as_deref().map(str::len), Some(500));
    assert_eq!(read.error_context, None);
    let wire = read.into_wire();
    let keys: Vec<&str> = wire.keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 4);
    assert!(keys.contains(&"reason") && keys.contains(&"message"));
    for invalid in [
        json!({"reason": "whatever"}),
        json!({"reason": 3}),
        json!("timeout"),
    ] {
        assert_eq!(ClassificationReply::from_wire(&invalid), None, "{invalid}");
    }
}

#[test]
fn context_replies_read_as_the_merge_reads_them() {
    assert_eq!(
        ContextReply::from_wire(&ContextReply::new(" c ").into_wire()),
        Some(ContextReply::new(" c "))
    );
    assert_eq!(
        ContextReply::from_wire(&json!({"context": ["a"]})),
        Some(ContextReply::new("['a']"))
    );
    assert_eq!(
        ContextReply::from_wire(&json!(" plain ")),
        Some(ContextReply::new(" plain "))
    );
    for ignored in [
        json!({"context": ""}),
        json!({"context": null}),
        json!("  "),
        json!(3),
    ] {
        assert_eq!(ContextReply::from_wire(&ignored), None, "{ignored}");
    }
}
