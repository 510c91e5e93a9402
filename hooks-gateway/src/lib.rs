//! # hooks-gateway
//!
//! Gateway hooks: folders `$HERMES_HOME/hooks/<name>/` with a `HOOK.yaml` whose
//! handlers run on gateway events (`gateway:startup`, `session:*`, `agent:*`,
//! `reaction:*`, `command:*`). Implements [`hooks_core::Dispatcher`].
