"""Runs conformance cases through hermes-agent 0.20.1's PluginManager.

argv: HERMES_HOME, cases.json. Each case: {"event", "payload", "replies"}.
For each case, replies.json in the conformance plugin is rewritten, then:
  results  the list PluginManager.invoke_hook returns (None left out,
           raising callbacks skipped), as the host receives it;
  outcome  what the host makes of it, in the Hermes wire shape: through the
           reference's own functions where 0.20.1 has one
           (_get_pre_tool_call_directive_details, get_pre_verify_continue_message,
           get_plugin_error_classification), else the call site's loop restated
           (file and line named at each).
Prints one JSON list, one {"results", "outcome"} per case.
"""
import json
import os
import sys

home, cases_file = sys.argv[1], sys.argv[2]
os.environ["HERMES_HOME"] = home
from hermes_cli import plugins  # noqa: E402

manager = plugins.get_plugin_manager()
manager.discover_and_load()
replies_file = os.path.join(home, "plugins", "conformance", "replies.json")


def plain(value):
    return json.loads(json.dumps(value, default=str))


def tool_gate(payload):
    keys = ("tool_name", "args", "task_id", "session_id", "tool_call_id")
    details = plugins._get_pre_tool_call_directive_details(
        **{k: payload[k] for k in keys if k in payload})
    if details.action == "block":
        return {"action": "block", "message": details.message}
    if details.action == "approve":
        wire = {"action": "approve", "message": details.message, "rule_key": details.rule_key}
        if details.modified_args is not None:
            wire["args"] = details.modified_args
        return wire
    if details.modified_args is not None:
        return {"action": "modify", "args": details.modified_args}
    return None


def context(results):
    # agent/turn_context.py:1202 (pre_llm_call), without the spill to disk.
    pieces = []
    for r in results:
        if isinstance(r, dict) and r.get("context"):
            pieces.append(str(r["context"]))
        elif isinstance(r, str) and r.strip():
            pieces.append(r)
    return {"context": "\n\n".join(pieces)} if pieces else None


def first_string(results, non_empty):
    # model_tools.py:1579, tools/terminal_tool.py:3375 (any str);
    # agent/turn_finalizer.py:606 (a non-empty str).
    for r in results:
        if isinstance(r, str) and (r or not non_empty):
            return r
    return None


def transcription(results):
    # tools/transcription_tools.py:1427: later hooks overwrite earlier ones.
    overrides = {}
    for r in results:
        if not isinstance(r, dict):
            continue
        for key, value in r.items():
            if key in ("prompt", "language", "model") and isinstance(value, str):
                overrides[key] = value
    return overrides or None


def gateway_dispatch(results):
    # gateway/run.py:16077.
    for r in results:
        if not isinstance(r, dict):
            continue
        action = r.get("action")
        if action == "skip":
            return {"action": "skip", "reason": r.get("reason")}
        if action == "rewrite":
            text = r.get("text")
            if isinstance(text, str):
                return {"action": "rewrite", "text": text}
            return None
        if action == "allow":
            return {"action": "allow"}
    return None


def outcome(event, payload, results):
    if event == "pre_tool_call":
        return tool_gate(payload)
    if event == "pre_llm_call":
        return context(results)
    if event == "pre_verify":
        message = plugins.get_pre_verify_continue_message(**payload)
        return {"action": "continue", "message": message} if message else None
    if event == "transform_api_error_classification":
        found = plugins.get_plugin_error_classification(**payload)
        if found is None:
            return None
        found["reason"] = found["reason"].value
        return found
    if event in ("transform_tool_result", "transform_terminal_output"):
        return first_string(results, non_empty=False)
    if event == "transform_llm_output":
        return first_string(results, non_empty=True)
    if event == "pre_transcription":
        return transcription(results)
    if event == "pre_gateway_dispatch":
        return gateway_dispatch(results)
    return None


with open(cases_file, encoding="utf-8") as handle:
    cases = json.load(handle)
answers = []
for case in cases:
    event, payload = case["event"], case["payload"]
    with open(replies_file, "w", encoding="utf-8") as handle:
        json.dump({event: case["replies"]}, handle)
    results = manager.invoke_hook(event, **dict(payload))
    answers.append({"results": plain(results), "outcome": plain(outcome(event, payload, results))})
sys.stdout.write(json.dumps(answers) + "\n")
