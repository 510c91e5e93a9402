"""Python plugin worker: runs a Hermes home's Python plugins for the Rust host.

Usage: python3 -c <this file> <HERMES_HOME>

One worker serves every Python plugin of a home, so plugins import each other
(``hermes_plugins.<slug>``) and share module state as in one Hermes process.

Protocol: one JSON object per line, on private copies of the original stdin
and stdout moved above the fds a plugin reaches by accident (``os.close(3)``
and the like hit nothing of ours). Every message carries an ``id``; answers
repeat the request's id. A protocol pipe that breaks anyway ends the worker at
once, so the host restarts it rather than failing every later request.

  ready     -> {"id": 0, "ready": true, "executable": ..., "version": ...}
  request   <- {"id": n, "op": "entry_points"}
            <- {"id": n, "op": "load", "plugin": {key, name, module, source, path, ...}}
            <- {"id": n, "op": "call", "callback": "<key>:<event>:<qualname>[#n]", "event": ..., "payload": {...}}
            <- {"id": n, "op": "calls", "event": ..., "timeout": s, "callbacks": [id, ...], "payload": {...}}
               (one event's callbacks, run in order, each with its own copy of the
               payload and `timeout` seconds as its own deadline (the last one's is
               the host's): answered once per
               callback, callback i under id n + i, as each finishes; one past its
               deadline is answered {"id": n + i, "ok": false, "type": "TimeoutError",
               "timed_out": true, ...} and the rest run on another thread)
            <- {"id": n, "op": "section", "callback": "<key>:section:<id>", "info": {...}}
            <- {"id": n, "op": "ping"}     (a health check: the reader, the writer and the event loop)
  post      <- {"op": "observe", "callback": ..., "event": ..., "template": {...},
                "count": n, "keys": [k, ...], "columns": [[v, ...], ...]}
               (payload i is the template with keys[j] set to columns[j][i]:
               the template has every payload's keys, in order)
            <- {"op": "observe", "callback": ..., "event": ..., "template": null,
                "payloads": [{...}, ...]}
               (payloads of different shapes, each whole)
  notice    -> {"notice": "observed", "callback": ..., "count": n, "errors": [{"type", "error"}, ...],
                "stderr_lines": lines written to stderr so far (the host shows them first)}
  answer    -> {"id": n, "ok": true, "result": ...}
            -> {"id": n, "ok": false, "type": "ValueError", "error": "..."}

One thread at a time reads requests and runs each one it reads itself (no
hand-off); a standby thread takes over reading when a request has held the
reader for about 10 ms, so a hung callback never holds up another one for
long (coroutines run on one event loop that runs for the worker's life). A
coroutine that raises SystemExit or KeyboardInterrupt fails its own call; it
cannot stop the loop (a loop stopped anyway runs again).

Queued observer events (``on_stream_delta`` and the like) are posted in
batches without an id and get no answer: each callback's events run in order
on that callback's own thread, and a notice says how many ran and which
raised (the host bounds how many are in flight and counts what it drops).

Callback ids name the callback (plugin, event, qualified name; ``#n`` only
among same-named ones), and each hook reports where its code is, so the host
can check that a restarted worker registered the same functions.

fd 0 becomes /dev/null and fd 1 becomes stderr once the protocol copies are
taken, so nothing a plugin (or a process it starts) prints can reach the
protocol. ``sys.stdout`` and ``sys.stderr`` write lines prefixed with
``\\x01<plugin>\\x02`` when the writer is known, so the host names the plugin.

Plugins see Hermes's module API: ``hermes_cli.plugins`` over the hooks
registered in this worker (``hermes_api.py``, appended to this script, which
then calls ``main()``).
"""

import asyncio
import contextvars
import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import os
import queue
import re
import signal
import sys
import threading
import time
import types

ENTRY_POINTS_GROUP = "hermes_agent.plugins"
NAMESPACE = "hermes_plugins"
TREE_ENV = "HERMES_HOOKS_TREE"
TELEMETRY_KEY = "telemetry_schema_version"
TELEMETRY_VALUE = "hermes.observer.v1"
NO_TELEMETRY = {"gateway_platform_event"}
# Fields that are live objects in Hermes; here they are their plain data,
# readable with attribute access (``event.source.chat_id``) as well as keys.
OBJECT_FIELDS = {
    "pre_gateway_dispatch": ("event", "gateway", "session_store"),
    "on_kanban_dispatch_tick": ("result",),
}
MAX_ANSWER_BYTES = 8 * 1024 * 1024
# The exit status of a worker whose protocol pipes broke.
BROKEN_PROTOCOL_EXIT = 70
SECTION_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}$")
SECTION_POSITIONS = ("after_memory",)
UNSUPPORTED = (
    "register_tool", "inject_message", "register_cli_command", "register_command",
    "dispatch_tool", "register_context_engine", "register_image_gen_provider",
    "register_dashboard_auth_provider", "register_video_gen_provider",
    "register_web_search_provider", "register_browser_provider",
    "register_secret_source", "register_tts_provider",
    "register_transcription_provider", "register_platform",
    "register_slack_action_handler", "register_auxiliary_task",
    "register_middleware", "register_skill",
)

current_plugin = contextvars.ContextVar("current_plugin", default=None)
callbacks = {}  # callback id -> (function, accepted keywords or None for all, plugin name)
sections = {}  # section id -> owning plugin name (ids are unique per worker)
warned = set()  # (plugin, api) pairs already warned about


class PluginStream:
    """sys.stdout / sys.stderr: lines go to fd 2, prefixed with the writing plugin."""

    def __init__(self, raw):
        self.raw = raw
        self.lock = threading.Lock()
        self.partial = {}

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError("write() argument must be str, not " + type(text).__name__)
        plugin = current_plugin.get()
        with self.lock:
            pending = self.partial.pop(plugin, "") + text
            *lines, rest = pending.split("\n")
            for line in lines:
                self.emit(plugin, line)
            if rest:
                self.partial[plugin] = rest
        return len(text)

    def flush(self):
        # A flush shows a partial line (print(delta, end="", flush=True)) right away.
        if not self.partial:
            return  # nothing held back (every request ends with a flush)
        with self.lock:
            for plugin, rest in list(self.partial.items()):
                self.emit(plugin, rest)
            self.partial.clear()

    # Lines written to fd 2 by every PluginStream, so a notice can say how
    # many the host must have shown before it counts the events as run.
    lines = 0
    lines_lock = threading.Lock()

    def emit(self, plugin, line):
        prefix = "\x01%s\x02" % plugin if plugin else ""
        try:
            self.raw.write(prefix + line + "\n")
            self.raw.flush()
        except (OSError, ValueError):
            return
        with PluginStream.lines_lock:
            PluginStream.lines += 1

    def isatty(self):
        return False

    def fileno(self):
        return 2

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True


class Channel:
    """The protocol: requests in, answers out, one writer at a time."""

    def __init__(self):
        # open_protocol, high_dup and above_low_fds: the shared prelude
        # (hooks-core's process/line/prelude.py, put in front of this script).
        self.requests, self.answers = open_protocol()
        self.lock = threading.Lock()
        raw = os.fdopen(high_dup(2), "w", encoding="utf-8", errors="replace")
        sys.stdout = PluginStream(raw)
        sys.stderr = PluginStream(raw)

    def read(self):
        """The next request line; "" at the end. A broken pipe ends the worker."""
        try:
            return self.requests.readline()
        except (OSError, ValueError) as exc:
            broken("reading requests", exc)

    def send(self, message):
        line = encode(message)
        if len(line) > MAX_ANSWER_BYTES:
            line = encode({"id": message.get("id"), "ok": False, "type": "ValueError",
                           "error": "the answer is larger than %d bytes" % MAX_ANSWER_BYTES})
        self.send_line(line)

    def send_line(self, line):
        """Writes one encoded message and its newline."""
        with self.lock:
            try:
                self.answers.write(line + "\n")
                self.answers.flush()
            except (OSError, ValueError) as exc:
                broken("writing answers", exc)


def broken(what, exc):
    """A protocol pipe broke (a plugin closed or replaced it): end now, the host restarts us."""
    try:
        os.write(2, ("worker: the protocol broke while %s (%s); the worker exits and is "
                     "restarted\n" % (what, exc)).encode("utf-8", "replace"))
    except OSError:
        pass
    os._exit(BROKEN_PROTOCOL_EXIT)


# Built once: json.dumps with options builds an encoder per call.
ENCODER = json.JSONEncoder(allow_nan=False, default=repr)


def encode(message):
    try:
        return ENCODER.encode(message)
    except (TypeError, ValueError, RecursionError):
        return ENCODER.encode(plain(message, 0))


def plain(value, depth):
    """A JSON-safe copy: odd keys become text, NaN and cycles become None."""
    if depth > 64:
        return None
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return None
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(k): plain(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def reply_value(value):
    # A result no merge rule reads (an arbitrary object) is no reply at all,
    # rather than its repr(), which a transform hook would take as text.
    if value is None or isinstance(value, (dict, list, tuple, str, int, float, bool)):
        return value
    return None


def describe(exc):
    return {"type": type(exc).__name__, "error": str(exc) or type(exc).__name__}


class Record(dict):
    """Plain data with attribute access, for fields that are live objects in Hermes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def as_record(value):
    if isinstance(value, dict):
        return Record((k, as_record(v)) for k, v in value.items())
    if isinstance(value, list):
        return [as_record(v) for v in value]
    return value


# Taken before any plugin runs (a plugin may patch time.sleep).
SLEEP = time.sleep


class Reader:
    """One thread at a time reads requests, and runs each one it reads itself.

    No hand-off on the fast path. A standby thread looks every TAKEOVER
    seconds while requests run: when one request has held the reader for a
    whole look, the standby takes over reading (and starts the next standby),
    so a hung request holds up only its own thread, and others wait at most
    about two looks. The old reader, once its request ends, leaves. With no
    request running the standby parks until one starts (no wake-ups while
    the worker is idle).
    """

    TAKEOVER = 0.01

    def __init__(self, channel, home):
        self.channel = channel
        self.home = home
        self.lock = threading.Lock()
        self.started = threading.Condition(self.lock)
        self.reader = None  # the token of the thread that reads now
        self.running = None  # the number of the request the reader runs, if any
        self.count = 0
        self.parked = False
        self.done = threading.Event()
        self.observers = Observers(channel)

    def serve_forever(self):
        """Reads and runs requests until the input closes."""
        me = object()
        with self.lock:
            self.reader = me
        threading.Thread(target=self.standby, daemon=True).start()
        # The main thread only waits: a request that never ends holds a
        # reader thread, never the worker's way out.
        threading.Thread(target=self.read_loop, args=(me,), daemon=True).start()
        self.done.wait()

    def read_loop(self, me):
        read = self.channel.read
        while True:
            line = read()
            if not line:
                self.done.set()
                return
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError("not an object")
            except ValueError:
                sys.stderr.write("worker: unreadable request line ignored\n")
                continue
            if request.get("op") == "observe" and "id" not in request:
                self.observers.post(request)
                continue
            with self.lock:
                self.count += 1
                self.running = self.count
                if self.parked:
                    self.started.notify()
            contextvars.copy_context().run(serve, self.channel, request, self.home)
            with self.lock:
                if self.reader is not me:
                    return  # another thread took over reading while this one ran
                self.running = None

    def standby(self):
        seen = None
        idle = 0
        while True:
            SLEEP(self.TAKEOVER)
            with self.lock:
                if self.done.is_set():
                    return
                if self.running is not None and self.running == seen:
                    me = object()
                    self.reader = me
                    self.running = None
                    break
                seen = self.running
                idle = idle + 1 if seen is None else 0
                if idle >= 2:
                    self.parked = True
                    self.started.wait()
                    self.parked = False
                    idle, seen = 0, None
        threading.Thread(target=self.standby, daemon=True).start()
        self.read_loop(me)


class Observer:
    """One callback's posted events, run in order on the callback's own thread."""

    MAX_ERRORS = 8

    def __init__(self, channel, callback, event):
        self.channel = channel
        self.callback = callback
        self.event = event
        # A C queue: a hand-off from the reader costs no Python-level lock
        # (a Condition builds a lock per wait).
        self.pending = queue.SimpleQueue()
        # The notice of a batch that raised nothing, formatted without the encoder.
        self.quiet_notice = ('{"notice": "observed", "callback": %s, "count": %%d, '
                             '"errors": [], "stderr_lines": %%d}' % encode(callback).replace("%", "%%"))
        threading.Thread(target=self.run, daemon=True).start()

    def add(self, template, count, keys, values):
        """Queues a batch: `count` payloads, the template with `keys` set to
        `values` (columns) when there is a template, else `values` whole."""
        self.pending.put((template, count, keys, values))

    def run(self):
        get, get_nowait, empty = self.pending.get, self.pending.get_nowait, self.pending.empty
        while True:
            batch = [get()]
            while not empty():
                batch.append(get_nowait())
            count = sum(posted[1] for posted in batch)
            errors = []
            try:
                self.run_batch(batch, errors)
            except BaseException as exc:  # noqa: B036 - an observer must not end the worker
                errors.append(describe(exc))
            sys.stdout.flush()
            sys.stderr.flush()
            if errors:
                self.channel.send({"notice": "observed", "callback": self.callback,
                                   "count": count, "errors": errors,
                                   "stderr_lines": PluginStream.lines})
            else:
                self.channel.send_line(self.quiet_notice % (count, PluginStream.lines))


    def run_batch(self, batch, errors):
        """Runs each payload as call() would, with the lookups done once per batch."""
        entry = callbacks.get(self.callback)
        if entry is None:
            raise LookupError("callback %s is not registered in this worker" % self.callback)
        function, accepted, plugin = entry
        current_plugin.set(plugin)
        telemetry = self.event not in NO_TELEMETRY
        objects = OBJECT_FIELDS.get(self.event, ())
        for template, count, keys, values in batch:
            if isinstance(template, dict):
                # The template has every payload's keys in their order, so a
                # copy updated with a payload's fields is that payload. Its
                # keys are interned (an update keeps them): a callback's
                # parameters then match them by identity, not by comparison.
                template = {sys.intern(k) if type(k) is str else k: v for k, v in template.items()}
                if telemetry:
                    template.setdefault(TELEMETRY_KEY, TELEMETRY_VALUE)
                if accepted is not None:
                    template = {n: v for n, v in template.items() if n in accepted}
            else:
                template = None
            if template is not None and accepted is None and not objects:
                # A stream to a **kwargs callback: the loop as tight as it goes.
                self.run_columns(function, template, count, keys, values, errors)
                continue
            if template is None:
                payloads = values
            elif keys:
                payloads = (dict(zip(keys, row)) for row in zip(*values))
            else:
                payloads = ({} for _ in range(count))
            for payload in payloads:
                try:
                    if template is not None:
                        kwargs = template.copy()
                        if accepted is None:
                            kwargs.update(payload)
                        else:
                            for name, value in payload.items():
                                if name in accepted:
                                    kwargs[name] = value
                    else:
                        kwargs = dict(payload or {})
                        if telemetry:
                            kwargs.setdefault(TELEMETRY_KEY, TELEMETRY_VALUE)
                        if accepted is not None:
                            kwargs = {n: v for n, v in kwargs.items() if n in accepted}
                    for field in objects:
                        if field in kwargs:
                            kwargs[field] = as_record(kwargs[field])
                    result = function(**kwargs)
                    if result is not None and inspect.isawaitable(result):
                        LOOP.run(result)
                except BaseException as exc:  # noqa: B036 - an observer must not end the worker
                    if len(errors) < self.MAX_ERRORS:
                        errors.append(describe(exc))

    def run_columns(self, function, template, count, keys, columns, errors):
        """Calls `function` with each payload of a columnar batch, one loop per shape.

        With no key every payload is the template: the template itself when
        the callback cannot keep or change the dict it is called with
        (fresh_keywords), otherwise a copy per call."""
        copy = template.copy
        keys = [sys.intern(k) if type(k) is str else k for k in keys]

        def failed(exc):
            if len(errors) < self.MAX_ERRORS:
                errors.append(describe(exc))

        if len(keys) == 1:
            # A stream's deltas: one field differs (the delta's text).
            key = keys[0]
            for value in columns[0]:
                try:
                    kwargs = copy()
                    kwargs[key] = value
                    result = function(**kwargs)
                    if result is not None and inspect.isawaitable(result):
                        LOOP.run(result)
                except BaseException as exc:  # noqa: B036 - an observer must not end the worker
                    failed(exc)
        elif keys:
            for row in zip(*columns):
                try:
                    kwargs = copy()
                    kwargs.update(zip(keys, row))
                    result = function(**kwargs)
                    if result is not None and inspect.isawaitable(result):
                        LOOP.run(result)
                except BaseException as exc:  # noqa: B036 - as above
                    failed(exc)
        else:
            shared = template if fresh_keywords(function) else None
            for _ in range(count):
                try:
                    result = function(**(copy() if shared is None else shared))
                    if result is not None and inspect.isawaitable(result):
                        LOOP.run(result)
                except BaseException as exc:  # noqa: B036 - as above
                    failed(exc)


class Observers:
    """The observer of each callback that gets posted events."""

    def __init__(self, channel):
        self.channel = channel
        self.observers = {}

    def post(self, request):
        callback = request.get("callback")
        posted = self.batch(request)
        if not isinstance(callback, str) or posted is None:
            sys.stderr.write("worker: unreadable observe line ignored\n")
            return
        observer = self.observers.get(callback)
        if observer is None:
            observer = Observer(self.channel, callback, request.get("event"))
            self.observers[callback] = observer
        observer.add(*posted)

    @staticmethod
    def batch(request):
        """(template, count, keys, values) of an observe line; None when malformed."""
        template = request.get("template")
        if template is None:
            payloads = request.get("payloads")
            if not isinstance(payloads, list):
                return None
            return None, len(payloads), (), payloads
        count, keys, columns = request.get("count"), request.get("keys"), request.get("columns")
        if (not isinstance(template, dict) or type(count) is not int or count < 0
                or not isinstance(keys, list) or not isinstance(columns, list)
                or len(keys) != len(columns)
                or not all(isinstance(column, list) and len(column) == count
                           for column in columns)):
            return None
        return template, count, keys, columns


class Loop:
    """One asyncio loop for the worker's life: awaited callbacks and their tasks live there.

    A plugin's coroutine that raises SystemExit or KeyboardInterrupt (which
    asyncio lets out of the loop) fails its own call; a loop stopped anyway
    (a task of a plugin raised it, or called loop.stop()) runs again.
    """

    def __init__(self):
        self.loop = None
        self.lock = threading.Lock()

    def forever(self, loop):
        asyncio.set_event_loop(loop)
        while True:
            try:
                loop.run_forever()
                reason = "was stopped"
            except BaseException as exc:  # noqa: B036 - the loop must outlive any plugin
                reason = "was stopped by %s" % type(exc).__name__
            sys.stderr.write("worker: the event loop %s (by a plugin's coroutine); it runs again\n"
                             % reason)
            sys.stderr.flush()

    def start(self):
        with self.lock:
            if self.loop is None:
                self.loop = above_low_fds(asyncio.new_event_loop)
                threading.Thread(target=self.forever, args=(self.loop,), daemon=True).start()

    def run(self, awaitable):
        self.start()

        async def wait():
            try:
                return False, await awaitable
            except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:
                # Raised here, asyncio would let it out of the loop and stop it.
                return True, exc

        raised, result = asyncio.run_coroutine_threadsafe(wait(), self.loop).result()
        if raised:
            raise result
        return result


LOOP = Loop()


def fresh_keywords(function):
    """Whether ``function(**d)`` hands the function none of ``d`` itself.

    CPython unpacks the dict into the call's keywords for a Python function
    (or a method of one): its ``**kwargs`` is a new dict and its named
    parameters are bound to the values, so the caller's dict can be reused.
    Another callable (a C function, a ``functools.partial``, an object with
    ``__call__``) may get the dict itself and keep it.
    """
    if type(function) is types.MethodType:
        function = function.__func__
    return type(function) is types.FunctionType


def accepted_names(function):
    """The keywords a callback declares; None when it takes **kwargs or cannot be inspected."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    names = set()
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_KEYWORD:
            return None
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
            names.add(parameter.name)
    return names


def warn_once(plugin, api, pending):
    if (plugin, api) in warned:
        return
    warned.add((plugin, api))
    message = ("plugin '%s' called ctx.%s, which this host does not provide; ignored "
               "(the plugin's hooks still run)" % (plugin, api))
    if pending is not None:
        pending.append(message)
    else:
        sys.stderr.write(message + "\n")
        sys.stderr.flush()


class Manifest:
    def __init__(self, spec):
        self.name = spec["name"]
        self.key = spec["key"]
        self.version = spec.get("version", "")
        self.description = spec.get("description", "")
        self.source = spec["source"]
        self.path = spec["path"]
        self.kind = "standalone"


class Unavailable:
    """ctx.llm: present, but every use says the host does not provide it."""

    def __init__(self, plugin, name):
        self._plugin, self._name = plugin, name

    def __getattr__(self, attribute):
        raise RuntimeError("plugin '%s': ctx.%s.%s is not available in this host"
                           % (self._plugin, self._name, attribute))


class Context:
    """The ``ctx`` handed to ``register(ctx)``: hooks and prompt sections work."""

    def __init__(self, spec, home):
        self.manifest = Manifest(spec)
        self._home = home
        self._hooks = []
        self._sections = []
        self._warnings = []
        self._registering = True

    def _pending(self):
        return self._warnings if self._registering else None

    def register_hook(self, hook_name, callback):
        if not callable(callback):
            raise TypeError("hook callback must be callable")
        name = callable_name(callback)
        # The id names the callback, so it means the same function in a
        # restarted worker whatever order the plugin registers in; an index
        # tells apart only callbacks of the same name for the same event.
        base = "%s:%s:%s" % (self.manifest.key, hook_name, name)
        same = sum(1 for hook in self._hooks if hook["base"] == base)
        callback_id = base if same == 0 else "%s#%d" % (base, same)
        callbacks[callback_id] = (callback, accepted_names(callback), self.manifest.name)
        PLUGIN_MANAGER.add_hook(str(hook_name), callback)
        self._hooks.append({"event": str(hook_name), "callback": callback_id, "name": name,
                            "location": location(callback), "base": base,
                            "function": callback})

    def register_system_prompt_section(self, section_id, content, *, position="after_memory",
                                       max_chars=4000):
        if not isinstance(section_id, str) or not SECTION_ID.match(section_id):
            raise ValueError("system prompt section id must be 1-128 lowercase characters "
                             "using letters, numbers, '.', '_', or '-'")
        if not isinstance(content, str) and not callable(content):
            raise TypeError("system prompt section content must be a string or callable")
        if position not in SECTION_POSITIONS:
            raise ValueError("system prompt section position must be one of: "
                             + ", ".join(SECTION_POSITIONS))
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) \
                or not 1 <= max_chars <= 4000:
            raise ValueError("system prompt section max_chars must be between 1 and 4000")
        owner = sections.get(section_id)
        if owner is not None and owner != self.manifest.name:
            raise ValueError("system prompt section %r is already registered by plugin %r"
                             % (section_id, owner))
        sections[section_id] = self.manifest.name
        entry = {"id": section_id, "position": position, "max_chars": max_chars,
                 "text": None, "callback": None}
        if isinstance(content, str):
            entry["text"] = content
        else:
            callback_id = "%s:section:%s" % (self.manifest.key, section_id)
            callbacks[callback_id] = (content, None, self.manifest.name)
            entry["callback"] = callback_id
        self._sections.append(entry)

    @property
    def profile_name(self):
        home = os.path.realpath(self._home)
        if os.path.basename(os.path.dirname(home)) == "profiles":
            return os.path.basename(home)
        default = os.path.realpath(os.path.join(os.path.expanduser("~"), ".hermes"))
        return "default" if home == default else "custom"

    @property
    def llm(self):
        warn_once(self.manifest.name, "llm", self._pending())
        return Unavailable(self.manifest.name, "llm")

    def __getattr__(self, name):
        if name in UNSUPPORTED:
            plugin = self.manifest.name

            def unsupported(*_args, **_kwargs):
                warn_once(plugin, name + "()", self._pending())

            return unsupported
        raise AttributeError("'PluginContext' object has no attribute %r" % name)


def callable_name(function):
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    if not isinstance(name, str):
        name = type(function).__qualname__
    return name


def location(function):
    """``file:line`` of a callable's code, or "" (a builtin, a C function)."""
    target = getattr(function, "__func__", function)
    code = getattr(target, "__code__", None)
    if code is None:
        code = getattr(getattr(type(target), "__call__", None), "__code__", None)
    if code is None:
        return ""
    return "%s:%d" % (code.co_filename, code.co_firstlineno)


def entry_points():
    return [{"name": ep.name, "value": ep.value} for ep in entry_points_objects()]


def import_plugin(spec):
    if spec["source"] == "entrypoint":
        for ep in entry_points_objects():
            if ep.name == spec["name"]:
                return ep.load()
        raise ImportError("entry point %r not found in group %r" % (spec["name"], ENTRY_POINTS_GROUP))
    directory = spec["path"]
    init_file = os.path.join(directory, "__init__.py")
    if not os.path.isfile(init_file):
        raise FileNotFoundError("No __init__.py in %s" % directory)
    if NAMESPACE not in sys.modules:
        namespace = types.ModuleType(NAMESPACE)
        namespace.__path__ = []
        namespace.__package__ = NAMESPACE
        sys.modules[NAMESPACE] = namespace
    module_name = "%s.%s" % (NAMESPACE, spec["module"])
    loader_spec = importlib.util.spec_from_file_location(
        module_name, init_file, submodule_search_locations=[directory])
    if loader_spec is None or loader_spec.loader is None:
        raise ImportError("Cannot create module spec for %s" % init_file)
    module = importlib.util.module_from_spec(loader_spec)
    module.__package__ = module_name
    module.__path__ = [directory]
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(module_name, None)
        raise
    return module


def entry_points_objects():
    eps = importlib.metadata.entry_points()
    if hasattr(eps, "select"):
        return list(eps.select(group=ENTRY_POINTS_GROUP))
    if isinstance(eps, dict):
        return list(eps.get(ENTRY_POINTS_GROUP, []))
    return [ep for ep in eps if ep.group == ENTRY_POINTS_GROUP]


def load(spec, home):
    current_plugin.set(spec["name"])
    module = import_plugin(spec)
    register = getattr(module, "register", None)
    if register is None:
        raise LookupError("no register() function")
    ctx = Context(spec, home)
    try:
        register(ctx)
    except BaseException:
        for hook in ctx._hooks:
            callbacks.pop(hook["callback"], None)
            PLUGIN_MANAGER.remove_hook(hook["event"], hook["function"])
        for section in ctx._sections:
            sections.pop(section["id"], None)
            if section["callback"]:
                callbacks.pop(section["callback"], None)
        raise
    finally:
        ctx._registering = False
    hooks = [{k: v for k, v in hook.items() if k not in ("base", "function")}
             for hook in ctx._hooks]
    return {"hooks": hooks, "sections": ctx._sections, "warnings": ctx._warnings}


def call(request):
    if request["op"] == "section":
        function, _accepted, plugin = registered(request["callback"])
        current_plugin.set(plugin)
        return finish(function(types.MappingProxyType(request.get("info") or {})))
    # The payload was decoded for this request alone: it is the keywords.
    return run_hook(request["callback"], request["event"], request.get("payload"))


def registered(callback_id):
    entry = callbacks.get(callback_id)
    if entry is None:
        raise LookupError("callback %s is not registered in this worker" % callback_id)
    return entry


def run_hook(callback_id, event, kwargs):
    """Runs one hook callback with ``kwargs`` (its own: the call may change them)."""
    function, accepted, plugin = registered(callback_id)
    current_plugin.set(plugin)
    kwargs = kwargs if type(kwargs) is dict else dict(kwargs or {})
    if event not in NO_TELEMETRY:
        kwargs.setdefault(TELEMETRY_KEY, TELEMETRY_VALUE)
    for field in OBJECT_FIELDS.get(event, ()):
        if field in kwargs:
            kwargs[field] = as_record(kwargs[field])
    if accepted is not None:
        kwargs = {name: value for name, value in kwargs.items() if name in accepted}
    return finish(function(**kwargs))


def finish(result):
    if result is not None and inspect.isawaitable(result):
        result = LOOP.run(result)
    return reply_value(result)


def own_copy(payload):
    """A copy of a decoded payload no other call shares (each ``call`` decodes its own)."""
    if type(payload) is not dict:
        return payload
    copy = dict(payload)
    for key, item in copy.items():
        kind = type(item)
        if kind is dict or kind is list:
            copy[key] = nested_copy(item)
    return copy


def nested_copy(value):
    kind = type(value)
    if kind is dict:
        return {key: nested_copy(item) for key, item in value.items()}
    if kind is list:
        return [nested_copy(item) for item in value]
    return value


class Joint:
    """One ``calls`` request: its callbacks run in order, each answered under its own id.

    Each callback but the last has the request's timeout as its own
    deadline here (the host bounds every answer too). One past it is answered
    as timed out by the watchdog, and the callbacks after it run on a new
    thread (the hung one keeps its own). Whichever comes first, the
    callback's end or its deadline, decides under the joint's lock: every
    callback runs once and is answered once, in order.
    """

    def __init__(self, channel, request):
        self.channel = channel
        self.first = request["id"]
        self.callbacks = list(request["callbacks"])
        self.event = request["event"]
        self.payload = request.get("payload")
        self.timeout = request.get("timeout") or None
        self.lock = threading.Lock()
        self.runner = None  # the token of the thread that runs the callbacks now
        self.index = None  # the callback running now, until it is answered

    def run(self, start):
        me = object()
        last = len(self.callbacks) - 1
        with self.lock:
            self.runner = me
            self.index = start
        index = start
        try:
            while True:
                if self.timeout and index < last:
                    # The last one holds up no other: the host's deadline is enough.
                    WATCHDOG.watch(self, index, time.monotonic() + self.timeout)
                answer = {"id": self.first + index}
                try:
                    # The last one takes the decoded payload itself.
                    payload = self.payload if index == last else own_copy(self.payload)
                    answer.update(ok=True, result=run_hook(self.callbacks[index], self.event,
                                                           payload))
                except BaseException as exc:  # a plugin must not end the worker
                    answer.update(ok=False, **describe(exc))
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                with self.lock:
                    if self.runner is not me or self.index != index:
                        return  # given up at its deadline: answered, the rest run elsewhere
                    # Answered here; the next one counts as running from now.
                    self.index = index + 1 if index < last else None
                send_answer(self.channel, answer)
                if index == last:
                    return
                index += 1
        finally:
            if self.timeout and start < last:
                WATCHDOG.forget(self, me)

    def expire(self, index):
        """Callback ``index`` passed its deadline: answer it, run the rest on a new thread."""
        with self.lock:
            if self.index != index:
                return  # it was answered meanwhile
            self.index = None
            self.runner = None  # the hung thread leaves when its callback returns
        self.channel.send({"id": self.first + index, "ok": False, "type": "TimeoutError",
                           "error": "did not finish within %ss" % self.timeout,
                           "timed_out": True})
        if index + 1 < len(self.callbacks):
            context = contextvars.copy_context()
            threading.Thread(target=context.run, args=(self.run, index + 1), daemon=True).start()


class Watchdog:
    """Gives up the running callback of a joint at its deadline (``Joint.expire``).

    One thread, asleep until the earliest deadline it knows of: a later
    deadline (the usual one, every callback having the same timeout) wakes
    nothing, so a callback pays two short lock holds.
    """

    def __init__(self):
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.deadlines = {}  # joint -> (deadline, index, runner)
        self.target = None  # when the thread wakes next; None: when told
        self.thread = None

    def watch(self, joint, index, deadline):
        with self.lock:
            self.deadlines[joint] = (deadline, index, joint.runner)
            if self.thread is None:
                self.thread = threading.Thread(target=self.loop, daemon=True)
                self.thread.start()
            elif self.target is None or deadline < self.target:
                self.changed.notify()

    def forget(self, joint, runner):
        with self.lock:
            watched = self.deadlines.get(joint)
            if watched is not None and watched[2] is runner:
                del self.deadlines[joint]

    def loop(self):
        while True:
            with self.lock:
                now = time.monotonic()
                due = [(joint, index) for joint, (deadline, index, _) in self.deadlines.items()
                       if deadline <= now]
                for joint, _ in due:
                    del self.deadlines[joint]
                if not due:
                    self.target = min((watched[0] for watched in self.deadlines.values()),
                                      default=None)
                    self.changed.wait(None if self.target is None else self.target - now)
                    continue
            for joint, index in due:
                joint.expire(index)


WATCHDOG = Watchdog()


def send_answer(channel, answer):
    request_id = answer["id"]
    if answer.get("result", True) is None and type(request_id) is int:
        # The commonest answer (a hook that lets the call through), without the encoder.
        channel.send_line('{"id": %d, "ok": true, "result": null}' % request_id)
    else:
        channel.send(answer)


def serve(channel, request, home):
    answer = {"id": request.get("id")}
    try:
        op = request.get("op")
        if op == "calls":
            # Answered once per callback, by the joint.
            Joint(channel, request).run(0)
            return
        if op in ("call", "section"):
            result = call(request)
        elif op == "load":
            result = load(request["plugin"], home)
        elif op == "entry_points":
            result = entry_points()
        elif op == "ping":
            async def pong():
                return "pong"
            result = LOOP.run(pong())
        else:
            raise ValueError("unknown request %r" % op)
        answer.update(ok=True, result=result)
    except BaseException as exc:  # a plugin must not end the worker, not even sys.exit()
        answer.update(ok=False, **describe(exc))
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    send_answer(channel, answer)


def end_tree():
    """The host is gone (our input closed): kill what plugins started, as the host would.

    The host marks the worker with a token in HERMES_HOOKS_TREE that every
    descendant inherits, so detached ones (setsid) are found through /proc.
    """
    token = os.environ.get(TREE_ENV, "").rsplit(":", 1)[-1].encode()
    if not token or not os.path.isdir("/proc"):
        return
    prefix = TREE_ENV.encode() + b"="
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % entry, "rb") as environ:
                variables = environ.read().split(b"\0")
        except OSError:
            continue
        for variable in variables:
            if variable.startswith(prefix) and token in variable[len(prefix):].split(b":"):
                try:
                    os.kill(int(entry), signal.SIGKILL)
                except OSError:
                    pass


def main():
    home = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("HERMES_HOME", "")
    channel = Channel()
    install_hermes_api()
    # Started now, while no plugin runs: its fds land above the low ones.
    LOOP.start()
    channel.send({"id": 0, "ready": True, "executable": sys.executable,
                  "version": "%d.%d.%d" % sys.version_info[:3]})
    Reader(channel, home).serve_forever()
    # The host is gone: atexit handlers of plugins run as the interpreter exits,
    # but a thread a plugin left running gets 5 s, not forever.
    end_tree()
    watchdog = threading.Timer(5.0, os._exit, args=(0,))
    watchdog.daemon = True
    watchdog.start()

