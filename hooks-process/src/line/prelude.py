"""Line-protocol worker prelude: the fd setup both Python workers share.

Put in front of a worker script by hermes_hooks_process's ``line_worker_script!``
(the plugin worker and the gateway-hook shim start with it). The protocol
uses private copies of the original stdin and stdout, close-on-exec (not
inherited by subprocesses) and moved above the low fds a plugin or handler
may close or reuse (``os.close(3)`` hits nothing of ours); fd 0 then becomes
/dev/null and fd 1 stderr, so nothing the plugin code (or a process it
starts) reads or prints can steal a request or corrupt an answer.
"""

import sys

# Started with ``-c``, the worker has the current directory (often a project
# the user cloned) first on sys.path: a ``json.py`` or ``contextvars.py`` there
# would replace the standard module for every plugin and handler, unsandboxed
# and never approved. The agent's own process does not have it (``hermes`` is
# a console script), so neither does the worker. First, before any import.
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".")]

import os  # noqa: E402

# The protocol fds live at or above this number (when the fd limit allows).
PROTOCOL_FD_BASE = 200
# What the worker itself opens after start-up (its event loop's selector and
# self-pipe) is opened above this fd (``above_low_fds``).
LOW_FDS = 64


def high_dup(fd):
    """A close-on-exec copy of fd at PROTOCOL_FD_BASE or above (plain dup() if the limit is lower)."""
    try:
        import fcntl
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, PROTOCOL_FD_BASE)
    except (ImportError, OSError, ValueError, AttributeError):
        return os.dup(fd)


def above_low_fds(create):
    """Runs create() with the free fds below LOW_FDS held, so what it opens lands above them."""
    held = []
    try:
        while True:
            fd = os.open(os.devnull, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            if fd >= LOW_FDS:
                os.close(fd)
                break
            held.append(fd)
    except OSError:
        pass
    try:
        return create()
    finally:
        for fd in held:
            os.close(fd)


def open_protocol():
    """(requests, answers): the protocol's text streams; fd 0 becomes /dev/null, fd 1 stderr."""
    requests = os.fdopen(high_dup(0), "r", encoding="utf-8", errors="replace")
    answers = os.fdopen(high_dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return requests, answers


