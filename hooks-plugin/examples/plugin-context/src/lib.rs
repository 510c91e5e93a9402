//! A native hooks plugin on `hermes-hooks-plugin-sdk`: adds a line of context to
//! every turn (`pre_llm_call`) and registers a cache-safe system-prompt
//! section computed once per new session.

use hermes_hooks_plugin_sdk::{PluginContext, RegisterError, SectionContent, events};

fn register(ctx: &mut PluginContext) -> Result<(), RegisterError> {
    ctx.register_hook(events::PRE_LLM_CALL, |turn| {
        let words = turn.user_message.split_whitespace().count();
        Some(format!(
            "plugin-context: the user wrote {words} word(s); answer in kind."
        ))
    })?;
    ctx.register_system_prompt_section(
        "plugin-context.house-rules",
        SectionContent::function(|session| {
            format!(
                "House rules for profile {} on {}: keep answers brief and cite files by path.",
                session.profile_name, session.platform
            )
        }),
    )
}

hermes_hooks_plugin_sdk::export_plugin!(register);

#[cfg(test)]
mod tests {
    use hermes_hooks_plugin_sdk::{SessionInfo, TestPlugin};
    use serde_json::json;

    #[test]
    fn context_and_section() {
        let plugin = TestPlugin::new(super::register).expect("registers");
        assert_eq!(
            plugin.call(
                "pre_llm_call",
                json!({"user_message": "tidy the build dir"})
            ),
            Ok(Some(
                json!({"context": "plugin-context: the user wrote 4 word(s); answer in kind."})
            ))
        );
        let sections = plugin.prompt_sections();
        assert_eq!(sections.len(), 1);
        assert_eq!(
            (sections[0].id.as_str(), sections[0].max_chars),
            ("plugin-context.house-rules", 4000)
        );
        let info = SessionInfo::default()
            .with_profile_name("coder")
            .with_platform("cli");
        let text = plugin.render_section("plugin-context.house-rules", &info);
        assert_eq!(
            text.as_deref(),
            Ok("House rules for profile coder on cli: keep answers brief and cite files by path.")
        );
    }
}
