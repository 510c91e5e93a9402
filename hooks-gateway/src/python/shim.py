"""Gateway-hook worker: runs one hook's handler.py for the Rust gateway.

Usage: python3 -c <this file> <path/to/handler.py> <hook name>

The handler is imported once as module ``hermes_hook_<name>`` (so module state
persists across events, as in the Python gateway), then one JSON object per line:

  startup   -> {"ready": true} | {"ready": false, "error": "..."}
  request   <- {"event": "agent:start", "context": {...}}
  response  -> {"ok": true, "result": <value or null>} | {"ok": false, "error": "..."}

The protocol uses private copies of the original stdin/stdout; fd 0 is then
/dev/null and fd 1 is stderr, so whatever the handler (or a process it starts)
reads or prints cannot steal a request or corrupt a response.
"""

import asyncio
import importlib.util
import inspect
import json
import os
import sys


def open_protocol():
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    responses = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests, responses


def send(responses, message):
    try:
        line = json.dumps(message, default=str, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        # NaN, circular or otherwise unserialisable results travel as text.
        message = dict(message, result=str(message.get("result")))
        line = json.dumps(message, default=str)
    responses.write(line + "\n")
    responses.flush()


def describe(exc):
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load(path, name):
    module_name = f"hermes_hook_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError("could not load handler.py")
    module = importlib.util.module_from_spec(spec)
    # Registered before running, like the reference, so typing/pydantic
    # introspection can resolve the module's own forward references.
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    handle = getattr(module, "handle", None)
    if not callable(handle):
        raise LookupError("no 'handle' function found")
    return handle


def main():
    requests, responses = open_protocol()
    try:
        handle = load(sys.argv[1], sys.argv[2])
    except BaseException as exc:  # SystemExit at import time is a load failure too
        send(responses, {"ready": False, "error": describe(exc)})
        return
    send(responses, {"ready": True})
    # One loop for the worker's life: clients and tasks bound to it survive between events.
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    for line in requests:
        try:
            request = json.loads(line)
            context = request.get("context")
            result = handle(request["event"], context if context is not None else {})
            if inspect.isawaitable(result):
                result = loop.run_until_complete(result)
            reply = {"ok": True, "result": result}
        except BaseException as exc:  # a handler must not end the worker, not even sys.exit()
            reply = {"ok": False, "error": describe(exc)}
        send(responses, reply)


main()
