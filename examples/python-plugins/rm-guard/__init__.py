"""Blocks destructive terminal commands before they run.

The doc's pre_tool_call block directive, with the pattern of its
``block-rm-rf.sh`` shell-hook example.
"""

import re

DESTRUCTIVE = re.compile(r"rm\s+-rf?\s+/")


def block_rm_rf(tool_name, args, **kwargs):
    if tool_name == "terminal" and DESTRUCTIVE.search(str(args.get("command", ""))):
        return {"action": "block", "message": "blocked: rm -rf / is not permitted"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", block_rm_rf)
