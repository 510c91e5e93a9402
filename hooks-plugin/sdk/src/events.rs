//! Typed hooks: one token per catalog event, tying the event to its payload
//! struct and to the reply type of its merge rule.
//!
//! `ctx.register_hook(events::PRE_TOOL_CALL, |call| ...)` lends the closure a
//! `&`[`PreToolCall`] and expects a
//! [`ToolDecision`]; `events::PRE_LLM_CALL` lends a `&PreLlmCall` and expects an
//! `Option<String>` (the context), and so on. The replies per merge rule:
//!
//! | rule | reply | meaning |
//! |---|---|---|
//! | `tool_gate` (`pre_tool_call`) | [`ToolDecision`] | allow, block, approve or modify |
//! | `context` (`pre_llm_call`) | `Option<String>` | context to add |
//! | `verify_continue` (`pre_verify`) | `Option<String>` | keep the turn going with this message |
//! | `first_string`, `first_non_empty_string` (transforms) | `Option<String>` | the replacement text |
//! | `transcription_fields` (`pre_transcription`) | [`TranscriptionReply`] | fields to override |
//! | `gateway_dispatch` (`pre_gateway_dispatch`) | `Option<DispatchReply>` | skip, rewrite or allow |
//! | `error_classification` | `Option<Map<String, Value>>` | the classification |
//! | `ignore` (observers) | `()` | nothing |

use std::marker::PhantomData;

use hermes_hooks_core::catalog::MergeRule;
use hermes_hooks_core::payloads::*;
use serde_json::{Map, Value};

use crate::reply::{DispatchReply, ToolDecision, TranscriptionReply, wire};

/// A catalog event whose payload is `Self`, with the reply type of its merge rule.
pub trait TypedEvent: HookPayload + Default + Send + 'static {
    /// What a hook of this event returns.
    type Reply;

    /// The reply in the Hermes wire shape; `None` for no reply.
    fn reply_to_wire(reply: Self::Reply) -> Option<Value>;
}

/// The token naming one event in [`PluginContext::register_hook`](crate::PluginContext::register_hook).
pub struct Hook<P>(PhantomData<fn() -> P>);

impl<P: TypedEvent> Hook<P> {
    /// The event name, e.g. `pre_tool_call`.
    pub fn name(&self) -> &'static str {
        P::EVENT.as_str()
    }
}

impl<P> Clone for Hook<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P> Copy for Hook<P> {}

macro_rules! typed_events {
    ($($constant:ident: $payload:ident => $reply:ty, $rule:ident, $convert:ident;)*) => {
        $(
            impl TypedEvent for $payload {
                type Reply = $reply;

                fn reply_to_wire(reply: $reply) -> Option<Value> {
                    wire::$convert(reply)
                }
            }

            // The reply type above must be the one of the catalog's merge rule.
            const _: () = assert!(matches!($payload::EVENT.meta().merge, MergeRule::$rule));

            #[doc = concat!("The `", stringify!($payload), "` event: its payload is [`", stringify!($payload), "`], a hook returns `", stringify!($reply), "`.")]
            pub const $constant: Hook<$payload> = Hook(PhantomData);
        )*

        /// Every event with a typed token, by name (to check the table covers the catalog).
        #[cfg(test)]
        pub(crate) const TYPED_NAMES: &[fn() -> &'static str] = &[
            $(|| $constant.name(),)*
        ];
    };
}

typed_events! {
    PRE_TOOL_CALL: PreToolCall => ToolDecision, ToolGate, tool_gate;
    POST_TOOL_CALL: PostToolCall => (), Ignore, ignore;
    TRANSFORM_TOOL_RESULT: TransformToolResult => Option<String>, FirstString, string;
    TRANSFORM_TERMINAL_OUTPUT: TransformTerminalOutput => Option<String>, FirstString, string;
    PRE_TRANSCRIPTION: PreTranscription => TranscriptionReply, TranscriptionFields, transcription;
    PRE_LLM_CALL: PreLlmCall => Option<String>, Context, context;
    POST_LLM_CALL: PostLlmCall => (), Ignore, ignore;
    TRANSFORM_LLM_OUTPUT: TransformLlmOutput => Option<String>, FirstNonEmptyString, string;
    PRE_VERIFY: PreVerify => Option<String>, VerifyContinue, verify_continue;
    PRE_API_REQUEST: PreApiRequest => (), Ignore, ignore;
    POST_API_REQUEST: PostApiRequest => (), Ignore, ignore;
    API_REQUEST_ERROR: ApiRequestError => (), Ignore, ignore;
    ON_STREAM_START: OnStreamStart => (), Ignore, ignore;
    ON_STREAM_DELTA: OnStreamDelta => (), Ignore, ignore;
    ON_STREAM_END: OnStreamEnd => (), Ignore, ignore;
    ON_INTERIM_MESSAGE: OnInterimMessage => (), Ignore, ignore;
    TRANSFORM_API_ERROR_CLASSIFICATION: TransformApiErrorClassification => Option<Map<String, Value>>, ErrorClassification, classification;
    ON_SESSION_START: OnSessionStart => (), Ignore, ignore;
    ON_SESSION_END: OnSessionEnd => (), Ignore, ignore;
    ON_SESSION_FINALIZE: OnSessionFinalize => (), Ignore, ignore;
    ON_SESSION_RESET: OnSessionReset => (), Ignore, ignore;
    ON_SKILL_LIFECYCLE: OnSkillLifecycle => (), Ignore, ignore;
    SUBAGENT_START: SubagentStart => (), Ignore, ignore;
    SUBAGENT_STOP: SubagentStop => (), Ignore, ignore;
    PRE_GATEWAY_DISPATCH: PreGatewayDispatch => Option<DispatchReply>, GatewayDispatch, gateway_dispatch;
    GATEWAY_PLATFORM_EVENT: GatewayPlatformEvent => (), Ignore, ignore;
    PRE_COMMAND: PreCommand => (), Ignore, ignore;
    PRE_APPROVAL_REQUEST: PreApprovalRequest => (), Ignore, ignore;
    POST_APPROVAL_RESPONSE: PostApprovalResponse => (), Ignore, ignore;
    KANBAN_TASK_CLAIMED: KanbanTaskClaimed => (), Ignore, ignore;
    KANBAN_TASK_COMPLETED: KanbanTaskCompleted => (), Ignore, ignore;
    KANBAN_TASK_BLOCKED: KanbanTaskBlocked => (), Ignore, ignore;
    ON_KANBAN_WORKER_SPAWNED: OnKanbanWorkerSpawned => (), Ignore, ignore;
    ON_KANBAN_WORKER_EXITED: OnKanbanWorkerExited => (), Ignore, ignore;
    ON_KANBAN_WORKER_STALE_CLAIM: OnKanbanWorkerStaleClaim => (), Ignore, ignore;
    ON_KANBAN_TASK_UPDATED: OnKanbanTaskUpdated => (), Ignore, ignore;
    ON_KANBAN_DISPATCH_TICK: OnKanbanDispatchTick => (), Ignore, ignore;
    AGENT_LOOP_STOPPED: AgentLoopStopped => (), Ignore, ignore;
    ON_ROOM_MEMBER_ACTIVITY: OnRoomMemberActivity => (), Ignore, ignore;
    PRE_AUXILIARY_CALL: PreAuxiliaryCall => (), Ignore, ignore;
    POST_AUXILIARY_CALL: PostAuxiliaryCall => (), Ignore, ignore;
}

#[cfg(test)]
mod tests {
    use hermes_hooks_core::HookEvent;

    #[test]
    fn every_catalog_event_has_a_typed_token() {
        let typed: Vec<&str> = super::TYPED_NAMES.iter().map(|name| name()).collect();
        let catalog: Vec<&str> = HookEvent::ALL.iter().map(|event| event.as_str()).collect();
        assert_eq!(typed, catalog);
    }
}
