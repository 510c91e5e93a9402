//! # hooks-shell
//!
//! Shell hooks: `hooks:` entries in `$HERMES_HOME/config.yaml` run as
//! subprocesses that read the event as JSON on stdin and may answer on stdout.
//! Implements [`hooks_core::Dispatcher`].
