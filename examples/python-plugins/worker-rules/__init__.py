"""The doc's cache-safe system-prompt section example."""


def board_rules(session_info):
    return f"Apply the worker rules for profile {session_info['profile_name']}."


def register(ctx):
    ctx.register_system_prompt_section(
        "kanban-advanced.worker-rules",
        board_rules,                       # a string is also accepted
        position="after_memory",
        max_chars=4000,
    )
