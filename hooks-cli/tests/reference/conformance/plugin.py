"""The conformance plugin: three callbacks on every event in events.json.

Callback i of an event returns replies[event][i] from replies.json beside this
file (read at call time, so one home serves every case): a JSON value, or the
string "__raise__" to raise, or nothing (None) past the end of the list.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def _replies(event):
    with open(os.path.join(HERE, "replies.json"), encoding="utf-8") as handle:
        return json.load(handle).get(event, [])


def _make(event, index):
    def callback(**kwargs):
        replies = _replies(event)
        if index >= len(replies):
            return None
        reply = replies[index]
        if reply == "__raise__":
            raise RuntimeError("conformance callback %d raised" % index)
        return reply

    callback.__name__ = callback.__qualname__ = "on_%s_%d" % (event, index)
    return callback


def register(ctx):
    with open(os.path.join(HERE, "events.json"), encoding="utf-8") as handle:
        events = json.load(handle)
    for event in events:
        for index in range(3):
            ctx.register_hook(event, _make(event, index))
