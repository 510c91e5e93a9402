"""Gateway-hook worker: runs one hook's handler.py for the Rust gateway.

Usage: python3 -c <this file> [--check] <path/to/handler.py> <hook name>

The handler is imported once as module ``hermes_hook_<name>`` (so module state
persists across events, as in the Python gateway), then one JSON object per line,
each carrying the id of the request it answers:

  startup   -> {"id": 0, "ready": true, "executable": ...} | {"id": 0, "ready": false, "error": "..."}
  request   <- {"id": 7, "event_type": "agent:start", "context": {...}}
  response  -> {"id": 7, "ok": true, "result": <value or null>}
             | {"id": 7, "ok": false, "error": "..."}

With ``--check`` the worker stops after the startup line (a trial import).

The protocol uses private copies of the original stdin/stdout (not inherited by
subprocesses, and moved above the low fds a handler may close or reuse); fd 0
is then /dev/null and fd 1 is stderr, so whatever the
handler, or a process it starts, reads or prints cannot steal a request or
corrupt a response.

One asyncio event loop runs for the worker's life, also between events: tasks a
handler schedules (``asyncio.create_task``, ``loop.call_later``) keep running
while no event is being handled. Requests are read on a thread and handled one
at a time, in order, by a single task on that loop.
"""

import asyncio
import importlib.util
import inspect
import json
import os
import sys
import threading


def open_protocol_streams():
    # open_protocol, high_dup and above_low_fds: the shared prelude
    # (hooks-core's process/line/prelude.py, put in front of this script).
    requests, responses = open_protocol()
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


def read_requests(requests, loop, queue):
    """Feeds request lines to the loop; None at end of input ends the worker."""
    try:
        for line in requests:
            loop.call_soon_threadsafe(queue.put_nowait, line)
    finally:
        loop.call_soon_threadsafe(queue.put_nowait, None)


async def serve(handle, requests, responses):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()
    reader = threading.Thread(
        target=read_requests, args=(requests, loop, queue), daemon=True
    )
    reader.start()
    while True:
        line = await queue.get()
        if line is None:
            return
        request_id = None
        try:
            request = json.loads(line)
            request_id = request.get("id")
            context = request.get("context")
            result = handle(request["event_type"], context if context is not None else {})
            if inspect.isawaitable(result):
                result = await result
            reply = {"id": request_id, "ok": True, "result": result}
        except BaseException as exc:  # a handler must not end the worker, not even sys.exit()
            if isinstance(exc, asyncio.CancelledError) and request_id is None:
                raise
            reply = {"id": request_id, "ok": False, "error": describe(exc)}
        send(responses, reply)


def main():
    requests, responses = open_protocol_streams()
    check_only = sys.argv[1] == "--check"
    path, name = sys.argv[-2], sys.argv[-1]
    try:
        handle = load(path, name)
    except BaseException as exc:  # SystemExit at import time is a load failure too
        send(responses, {"id": 0, "ready": False, "error": describe(exc)})
        return
    send(responses, {"id": 0, "ready": True, "executable": sys.executable})
    if check_only:
        return
    loop = above_low_fds(asyncio.new_event_loop)
    asyncio.set_event_loop(loop)
    loop.run_until_complete(serve(handle, requests, responses))


main()
# End of input: leave without waiting for the handler's non-daemon threads.
sys.stdout.flush()
os._exit(0)
