# --- hermes_api.py: Hermes's module API as plugins see it in this worker ----
#
# Real Hermes plugins import ``hermes_cli.plugins`` at import or call time:
# agentsfence, for one, checks on every pre_tool_call that its own callback is
# in ``iter_hook_callbacks("pre_tool_call")`` and fails closed when it is not.
# The worker therefore offers ``hermes_cli.plugins`` (and the ``hermes_cli``
# package when Hermes itself is not installed in this interpreter) over the
# hooks registered in this worker, in registration order, as hermes-agent
# 0.20.1's ``PluginManager._hooks`` holds them:
#
#   get_plugin_manager()           the manager (the same object every call)
#   iter_hook_callbacks(name)      tuple of the callbacks registered for name
#   has_hook(name)                 whether any is registered
#   invoke_hook(name, **kwargs)    run them as Hermes does: narrowed keywords,
#                                  the telemetry marker, exceptions logged and
#                                  skipped, None left out of the results
#   has_middleware(kind)           False: this host runs no middleware
#   PluginContext                  the class of the ``ctx`` register() gets
#   PluginManager                  the manager's class
#
# Hooks of other mechanisms (shell hooks, native plugins, the host's own
# closures) are not in this registry: a worker sees the Python plugins only.


class PluginManager:
    """hermes_cli.plugins.PluginManager as far as this worker has one."""

    def __init__(self):
        # event name -> callbacks, in registration order (Hermes's ``_hooks``).
        self._hooks = {}

    def add_hook(self, hook_name, callback):
        self._hooks.setdefault(hook_name, []).append(callback)

    def remove_hook(self, hook_name, callback):
        registered = self._hooks.get(hook_name, [])
        for index, existing in enumerate(registered):
            if existing is callback:
                del registered[index]
                break
        if not registered:
            self._hooks.pop(hook_name, None)

    def iter_hook_callbacks(self, hook_name):
        """A stable snapshot of the callbacks registered for a hook."""
        return tuple(self._hooks.get(hook_name, ()))

    def has_hook(self, hook_name):
        return bool(self._hooks.get(hook_name))

    def has_middleware(self, kind):
        return False

    def invoke_hook(self, hook_name, **kwargs):
        """Call every callback for hook_name, as Hermes's invoke_hook does."""
        if hook_name not in NO_TELEMETRY:
            kwargs.setdefault(TELEMETRY_KEY, TELEMETRY_VALUE)
        results = []
        for callback in self.iter_hook_callbacks(hook_name):
            accepted = accepted_names(callback)
            arguments = kwargs if accepted is None else {
                name: value for name, value in kwargs.items() if name in accepted}
            try:
                result = callback(**arguments)
            except Exception as exc:
                sys.stderr.write("Hook '%s' callback %s raised: %s\n"
                                 % (hook_name, callable_name(callback), exc))
                continue
            if result is not None:
                results.append(result)
        return results

    def discover_and_load(self, force=False):
        """Plugins are loaded by the host: nothing to discover here."""
        return None


PLUGIN_MANAGER = PluginManager()


def install_hermes_api():
    """Makes ``hermes_cli.plugins`` importable as this worker's view."""
    module = types.ModuleType("hermes_cli.plugins")
    module.__doc__ = "Hermes's plugin API, over the hooks registered in this worker."
    module.PluginManager = PluginManager
    module.PluginContext = Context
    module.get_plugin_manager = lambda: PLUGIN_MANAGER
    module.iter_hook_callbacks = PLUGIN_MANAGER.iter_hook_callbacks
    module.has_hook = PLUGIN_MANAGER.has_hook
    module.has_middleware = PLUGIN_MANAGER.has_middleware
    module.invoke_hook = PLUGIN_MANAGER.invoke_hook
    module.ENTRY_POINTS_GROUP = ENTRY_POINTS_GROUP
    package = sys.modules.get("hermes_cli")
    if package is None and importlib.util.find_spec("hermes_cli") is None:
        # Hermes is not installed here: a package that holds the view alone,
        # so ``import hermes_cli.<other>`` still fails as ImportError.
        package = types.ModuleType("hermes_cli")
        package.__path__ = []
        package.__package__ = "hermes_cli"
        sys.modules["hermes_cli"] = package
    # With Hermes installed the real package is imported when a plugin asks
    # for it, and finds this module in sys.modules for ``hermes_cli.plugins``.
    sys.modules["hermes_cli.plugins"] = module
    if package is not None:
        package.plugins = module
