"""The doc's transform_tool_result example: redact ``sk-`` API keys."""

import re

SECRET = re.compile(r"sk-[A-Za-z0-9]{32,}")


def redact_secrets(tool_name, result, **kwargs):
    if SECRET.search(result):
        return SECRET.sub("[REDACTED]", result)
    return None


def register(ctx):
    ctx.register_hook("transform_tool_result", redact_secrets)
