"""The doc's streaming example: print each text delta (an observer; replies are ignored)."""


def on_delta(delta, kind, model, provider, **kwargs):
    if kind == "text":
        print(delta, end="", flush=True)


def register(ctx):
    ctx.register_hook("on_stream_delta", on_delta)
