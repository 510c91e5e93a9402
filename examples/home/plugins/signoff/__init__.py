"""A Python plugin for the demo home: it runs unchanged in the hooks worker,
as Hermes would run it in-process.

transform_llm_output: the first non-empty string reply replaces the response.
The callback declares only the keywords it uses (current upstream passes just
those; 0.19.0 passes every keyword, hence ``**kwargs``).
"""


def sign(response_text, model, **kwargs):
    if not response_text.strip():
        return None
    return f"{response_text}\n-- checked by the signoff plugin ({model})"


def register(ctx):
    ctx.register_hook("transform_llm_output", sign)
