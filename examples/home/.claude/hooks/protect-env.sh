#!/usr/bin/env bash
# A Claude Code PreToolUse guard, written as Claude Code users write them:
# reads the first line of stdin, finds tool_input.file_path with python3 (no jq),
# and denies writes to .env files with exit 0 + permissionDecision.
read -r input
path=$(printf '%s' "$input" | python3 -c 'import json, sys; print(json.load(sys.stdin).get("tool_input", {}).get("file_path", ""))')
case "$path" in
  *.env|*/.env.*|.env)
    printf '%s\n' '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"protect-env (Claude Code guard): .env files hold secrets; not writing them"}}'
    ;;
esac
exit 0
