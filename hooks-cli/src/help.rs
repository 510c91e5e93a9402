//! The long help after each subcommand's options: examples, the environment
//! variables it reads, and its exit statuses.

/// The variables every command reads.
macro_rules! env_common {
    () => {
        "  HERMES_HOME           the Hermes home when --home is not given (else ~/.hermes)\n  \
         HOOKS_LOG             log filter for stderr (e.g. debug); overrides -v\n  \
         NO_COLOR              when non-empty: no colour\n  \
         CLICOLOR_FORCE        when non-empty and not 0: colour even when not a terminal\n  \
         TERM                  `dumb`: no colour\n"
    };
}

/// The variables of commands that run the configured hooks.
macro_rules! env_running {
    () => {
        "  HERMES_ACCEPT_HOOKS   1/true/yes/on: approve hooks not allowlisted yet (as --accept-hooks)\n  \
         HERMES_SAFE_MODE      1/true/yes/on: register no shell hooks (nor imported ones)\n  \
         HERMES_HOOKS_PYTHON   the Python that runs Python plugins and gateway handler.py\n  \
         HERMES_HOOKS_CGROUP   off: contain hook processes without a cgroup (subreaper and mark)\n  \
         HOOKS_OTLP_WAIT_MS    how long the OTLP collector (OTEL_EXPORTER_OTLP_ENDPOINT) is waited for (default 40)\n  \
         HOME                  expands ~/ in hook commands\n"
    };
}

/// The usual exit statuses.
macro_rules! exit_usual {
    () => {
        "\nExit status:\n  \
         0  done (also when stdout is closed early, e.g. `| head -1`)\n  \
         2  bad arguments, unknown event, unreadable or invalid file\n"
    };
}

/// `hooks --help`.
pub const MAIN: &str = concat!(
    "Examples:\n  \
     hooks list\n  \
     hooks test pre_tool_call --for-tool terminal\n  \
     hooks emit on_session_end --json\n  \
     hooks approve --all\n  \
     hooks doctor\n  \
     hooks --project ~/src/app test PreToolUse --for-tool Bash   (hooks_from: claude)\n\
     \nEnvironment:\n",
    env_common!(),
    env_running!(),
    "\nExit status:\n  \
     0  done\n  \
     1  `hooks doctor` found a problem\n  \
     2  bad arguments, unknown event, unreadable or invalid file\n  \
     130, 143, 129  interrupted by SIGINT, SIGTERM, SIGHUP (running hooks are killed first)\n\
     \nResults go to stdout, warnings and logs to stderr; each warning is shown once.\n"
);

/// `hooks list --help`.
pub const LIST: &str = concat!(
    "Runs no hook or plugin code: plugins and gateway handlers are read from their\n\
     manifests, and what each one registers is what the last `hooks doctor` found\n\
     by trial-loading it (cached in <home>/.hooks-cache/, keyed by a hash of its\n\
     files); one changed since then shows as \"not inspected yet\".\n\
     \nExamples:\n  \
     hooks list\n  \
     hooks list --json | jq '.shell_hooks[] | select(.allowlisted | not)'\n  \
     hooks --home /srv/hermes list\n\
     \nEnvironment:\n",
    env_common!(),
    exit_usual!()
);

/// `hooks test --help`.
pub const TEST: &str = concat!(
    "Runs each hook even when it is not allowlisted (an explicit action of yours),\n\
     and marks the ones that would not run at runtime yet: the merged outcome is what\n\
     would happen once they are approved. With --accept-hooks they are approved first.\n\
     \nThe payload file may also be a shell-hook stdin document (hook_event_name,\n\
     tool_input, extra, ...), read back as the event it describes; its hook_event_name\n\
     must then be EVENT (else exit 2).\n\
     \nExamples:\n  \
     hooks test pre_tool_call --for-tool terminal\n  \
     hooks test pre_tool_call --payload-file captured-stdin.json\n  \
     echo '{\"user_message\": \"hi\"}' | hooks test pre_llm_call --payload-file - --json\n\
     \nEnvironment:\n",
    env_common!(),
    "  HERMES_ACCEPT_HOOKS   1/true/yes/on: approve hooks not allowlisted yet (as --accept-hooks)\n  \
     HOME                  expands ~/ in hook commands\n",
    exit_usual!()
);

/// `hooks emit --help`.
pub const EMIT: &str = concat!(
    "Applies consent as a host does: hooks not allowlisted do not run (unless\n\
     --accept-hooks). Waits at most 5 s for this event's webhook deliveries; the ones\n\
     still pending then are reported as abandoned.\n\
     \nExamples:\n  \
     hooks emit on_session_end\n  \
     hooks emit pre_tool_call --payload-file call.json --json\n  \
     hooks emit command:reset\n\
     \nEnvironment:\n",
    env_common!(),
    env_running!(),
    "  <secret_env>          each outbound target's signing secret, by the name it configures\n",
    exit_usual!()
);

/// `hooks replay --help`.
pub const REPLAY: &str = concat!(
    "Examples:\n  \
     hooks replay session.jsonl\n  \
     hooks replay session.jsonl --json | jq 'select(.outcome != null)'\n\
     \nEnvironment:\n",
    env_common!(),
    env_running!(),
    "  <secret_env>          each outbound target's signing secret, by the name it configures\n",
    "\nExit status:\n  \
     0  every line replayed\n  \
     2  bad arguments, unreadable file, or some lines could not be replayed\n"
);

/// `hooks approve --help`.
pub const APPROVE: &str = concat!(
    "Records consent in the allowlist (shell-hooks-allowlist.json in the home, the\n\
     same file, format and lock as Hermes) without running anything. COMMAND must be\n\
     configured in config.yaml.\n\
     \nExamples:\n  \
     hooks approve '~/.hermes/agent-hooks/block-rm-rf.sh'\n  \
     hooks approve '~/.hermes/agent-hooks/log-tool.sh' --event post_tool_call\n  \
     hooks approve --all\n\
     \nEnvironment:\n",
    env_common!(),
    "\nExit status:\n  \
     0  approved\n  \
     2  COMMAND or EVENT not configured, the home does not exist, or the allowlist\n     \
     cannot be written\n"
);

/// `hooks revoke --help`.
pub const REVOKE: &str = concat!(
    "Examples:\n  \
     hooks revoke '~/.hermes/agent-hooks/block-rm-rf.sh'\n\
     \nEnvironment:\n",
    env_common!(),
    "\nExit status:\n  \
     0  done (also when nothing was approved)\n  \
     2  the home does not exist, or the allowlist cannot be written\n"
);

/// `hooks doctor --help`.
pub const DOCTOR: &str = concat!(
    "Trial-loads every enabled plugin and every handler.py, each in a child process\n\
     of its own, all at the same time, each killed (with everything it started) at\n\
     --timeout; what they register is cached for `hooks list`.\n\
     \nExamples:\n  \
     hooks doctor\n  \
     hooks doctor --timeout 30\n  \
     hooks doctor --json | jq '.problems'\n\
     \nEnvironment:\n",
    env_common!(),
    "  HERMES_HOOKS_PYTHON   the Python that runs Python plugins and gateway handler.py\n",
    "\nExit status:\n  \
     0  no problem found\n  \
     1  a problem found\n  \
     2  bad arguments, unreadable config\n"
);

/// `hooks events --help`.
pub const EVENTS: &str = concat!(
    "Examples:\n  \
     hooks events\n  \
     hooks events --json | jq -r '.events[].name'\n\
     \nEnvironment:\n",
    env_common!(),
    exit_usual!()
);

/// `hooks listen --help`.
pub const LISTEN: &str = concat!(
    "Examples:\n  \
     HERMES_DEMO_WEBHOOK_SECRET=s3cret hooks listen --secret-env HERMES_DEMO_WEBHOOK_SECRET\n  \
     hooks listen --port 9000 --json --count 1\n\
     \nEnvironment:\n",
    env_common!(),
    "  <VAR>                 the signing secret, named by --secret-env\n",
    "\nExit status:\n  \
     0  stopped (Ctrl-C or --count reached)\n  \
     2  the port cannot be bound, or the --secret-env variable is not set\n"
);

/// `hooks completions --help`.
pub const COMPLETIONS: &str = concat!(
    "Examples:\n  \
     hooks completions bash > ~/.local/share/bash-completion/completions/hooks\n  \
     hooks completions zsh > ~/.zfunc/_hooks\n  \
     hooks completions fish > ~/.config/fish/completions/hooks.fish\n\
     \nEnvironment:\n",
    env_common!(),
    exit_usual!()
);

/// `hooks deliver --help`.
pub const DELIVER: &str = concat!(
    "Examples:\n  \
     hooks deliver                 # a worker: runs until SIGTERM or Ctrl-C\n  \
     hooks deliver --once          # send what is due, then exit\n\
     \nDelivers the deliveries of `delivery: durable` targets that hosts wrote to\n\
     $HERMES_HOME/outbound/spool.sqlite3. Any number of workers (and hosts) may\n\
     share one spool; a delivery is sent by one of them at a time.\n\
     \nEnvironment:\n",
    env_common!(),
    "  HERMES_SAFE_MODE      1/true/yes/on: deliver nothing\n",
    "\nExit status:\n  \
     0  stopped (SIGTERM, SIGINT, or --once with nothing due)\n  \
     2  bad arguments, no durable target, or a spool that cannot be opened\n"
);

/// `hooks spool --help`.
pub const SPOOL: &str = concat!(
    "Examples:\n  \
     hooks spool\n  \
     hooks spool --json | jq '.dead[] | .delivery_id'\n  \
     hooks spool retry 3f2c9a0b5d7e4f61a2b3c4d5e6f70812\n  \
     hooks spool retry --all\n  \
     hooks spool purge --dead\n\
     \nEnvironment:\n",
    env_common!(),
    "\nExit status:\n  \
     0  done\n  \
     2  bad arguments, an unknown delivery id, or a spool that cannot be opened\n"
);
