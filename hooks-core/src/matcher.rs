//! Tool-name matchers: anchored full-match regexes shared by shell hooks and outbound webhooks.
//!
//! The reference compiles a matcher with Python's `re` and calls `fullmatch`.
//! Ours compiles it with the `regex` crate (linear time) and, where that
//! refuses the pattern because it uses what only a backtracking engine has
//! (look-ahead, look-behind, back-references, atomic groups), with
//! `fancy-regex`, once, with the same anchoring (`^(?:pattern)$`). Only a
//! pattern neither accepts is compared literally, with a warning, as the
//! reference does for a pattern `re` refuses; [`ToolMatcher::is_uncompilable`]
//! says so, for callers that must not let such a matcher fail open.

use fancy_regex::Regex as BacktrackingEngine;
use regex::Regex as LinearEngine;

/// A tool-name filter: no pattern matches everything; a pattern must match the
/// whole tool name; an invalid pattern is compared literally.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ToolMatcher {
    /// No matcher: every call, with or without a tool name.
    Any,
    /// A valid pattern, compiled as `^(?:pattern)$`.
    Pattern(ToolPattern),
    /// An invalid pattern, compared by string equality.
    Literal(String),
}

/// A valid tool-name pattern, compiled anchored (`^(?:pattern)$`). The regex
/// engine stays private: the pattern's text and a full match are the API.
#[derive(Debug, Clone)]
pub struct ToolPattern {
    pattern: String,
    engine: Engine,
}

/// The engine that accepted a pattern.
#[derive(Debug, Clone)]
enum Engine {
    /// The `regex` crate: every pattern it accepts.
    Linear(LinearEngine),
    /// `fancy-regex`: a pattern with look-around or back-references.
    Backtracking(Box<BacktrackingEngine>),
}

/// How many backtracking steps one match may take before it gives up (the
/// `fancy-regex` default is 1,000,000). A tool name is short: a pattern that
/// needs more is pathological, and is then taken to match (see [`ToolPattern::is_match`]).
const BACKTRACK_LIMIT: usize = 10_000_000;

impl ToolPattern {
    /// The pattern as configured (trimmed), without the anchors.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the whole of `name` matches the pattern.
    ///
    /// A backtracking pattern that exceeds its step budget on `name` counts as
    /// a match: the hook then runs and decides, so a guard never stands aside
    /// because its matcher gave up.
    pub fn is_match(&self, name: &str) -> bool {
        match &self.engine {
            Engine::Linear(regex) => regex.is_match(name),
            Engine::Backtracking(regex) => regex.is_match(name).unwrap_or(true),
        }
    }

    /// Whether the pattern needed the backtracking engine (look-around,
    /// back-references): `regex` alone would have refused it.
    pub fn needs_backtracking(&self) -> bool {
        matches!(self.engine, Engine::Backtracking(_))
    }

    /// Compiles `pattern` anchored: with `regex`, else with `fancy-regex`.
    /// The error is `fancy-regex`'s when both refuse (it names the
    /// construct), else `regex`'s.
    fn compile(pattern: &str) -> Result<Self, String> {
        let anchored = format!("^(?:{pattern})$");
        let engine = match LinearEngine::new(&anchored) {
            Ok(regex) => Engine::Linear(regex),
            Err(linear_error) => fancy_regex::RegexBuilder::new(&anchored)
                .backtrack_limit(BACKTRACK_LIMIT)
                .build()
                .map(|regex| Engine::Backtracking(Box::new(regex)))
                .map_err(|error| match error {
                    fancy_regex::Error::ParseError(..) => error.to_string(),
                    _ => linear_error.to_string(),
                })?,
        };
        Ok(ToolPattern {
            pattern: pattern.to_owned(),
            engine,
        })
    }
}

/// The outcome of building a matcher: the matcher and a warning for an invalid pattern.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BuiltMatcher {
    /// The matcher.
    pub matcher: ToolMatcher,
    /// Why the pattern was taken literally, if it was.
    pub warning: Option<String>,
}

impl ToolMatcher {
    /// Builds a matcher from a configured pattern. Surrounding whitespace is
    /// trimmed and a blank pattern means "no matcher".
    pub fn build(pattern: Option<&str>) -> BuiltMatcher {
        let Some(pattern) = pattern.map(str::trim).filter(|p| !p.is_empty()) else {
            return BuiltMatcher {
                matcher: ToolMatcher::Any,
                warning: None,
            };
        };
        match ToolPattern::compile(pattern) {
            Ok(compiled) => BuiltMatcher {
                matcher: ToolMatcher::Pattern(compiled),
                warning: None,
            },
            Err(error) => BuiltMatcher {
                matcher: ToolMatcher::Literal(pattern.to_owned()),
                warning: Some(format!(
                    "matcher '{pattern}' is invalid ({}) — treating as literal equality",
                    first_line(&error)
                )),
            },
        }
    }

    /// Whether a pattern was configured that neither engine compiles (it is
    /// then compared literally). A fail-closed guard with such a matcher
    /// should block rather than gate nothing.
    pub fn is_uncompilable(&self) -> bool {
        matches!(self, ToolMatcher::Literal(_))
    }

    /// The configured pattern, if any.
    pub fn pattern(&self) -> Option<&str> {
        match self {
            ToolMatcher::Any => None,
            ToolMatcher::Pattern(pattern) => Some(pattern.as_str()),
            ToolMatcher::Literal(pattern) => Some(pattern),
        }
    }

    /// Whether a call of `tool_name` passes. With a pattern, a call without a tool name does not.
    pub fn matches(&self, tool_name: Option<&str>) -> bool {
        match (self, tool_name) {
            (ToolMatcher::Any, _) => true,
            (_, None) => false,
            (ToolMatcher::Pattern(pattern), Some(name)) => pattern.is_match(name),
            (ToolMatcher::Literal(literal), Some(name)) => literal == name,
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines().last().unwrap_or(text).trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(pattern: &str) -> ToolMatcher {
        ToolMatcher::build(Some(pattern)).matcher
    }

    #[test]
    fn no_matcher_matches_everything_including_no_tool() {
        let any = ToolMatcher::build(None).matcher;
        assert!(any.matches(Some("terminal")));
        assert!(any.matches(None));
        assert!(matcher("   ").matches(None));
    }

    #[test]
    fn patterns_are_full_matches() {
        let m = matcher("terminal|file");
        assert!(m.matches(Some("terminal")));
        assert!(m.matches(Some("file")));
        assert!(!m.matches(Some("terminal_extra")));
        assert!(!m.matches(None));
    }

    #[test]
    fn a_valid_pattern_is_ours_with_its_text_and_a_full_match() {
        let ToolMatcher::Pattern(pattern) = matcher(" read_.* ") else {
            panic!("a valid pattern compiles");
        };
        assert_eq!(pattern.as_str(), "read_.*");
        assert!(pattern.is_match("read_file"));
        assert!(!pattern.is_match("x_read_file"));
    }

    #[test]
    fn whitespace_around_patterns_is_trimmed() {
        assert!(matcher(" terminal ").matches(Some("terminal")));
        assert!(matcher("terminal\n").matches(Some("terminal")));
    }

    #[test]
    fn invalid_regex_falls_back_to_literal_with_a_warning() {
        let built = ToolMatcher::build(Some("foo[bar"));
        assert!(built.warning.is_some_and(|w| w.contains("foo[bar")));
        assert!(built.matcher.matches(Some("foo[bar")));
        assert!(!built.matcher.matches(Some("foo")));
    }

    #[test]
    fn python_look_ahead_and_back_references_compile_and_fire() {
        // Both are refused by `regex`: before fancy-regex they were literal
        // and a guard written for Hermes gated nothing.
        let look_ahead = ToolMatcher::build(Some("(?!read)term.*"));
        assert!(look_ahead.warning.is_none(), "{:?}", look_ahead.warning);
        assert!(look_ahead.matcher.matches(Some("terminal")));
        assert!(!look_ahead.matcher.matches(Some("read_file")));
        let ToolMatcher::Pattern(pattern) = &look_ahead.matcher else {
            panic!("a look-ahead compiles");
        };
        assert!(pattern.needs_backtracking());

        let not_read = matcher("(?!read_).*_file");
        assert!(not_read.matches(Some("write_file")));
        assert!(!not_read.matches(Some("read_file")));

        let look_behind = matcher(".*(?<!safe)_exec");
        assert!(look_behind.matches(Some("shell_exec")));
        assert!(!look_behind.matches(Some("safe_exec")));

        let doubled = matcher(r"(\w)\1.*");
        assert!(doubled.matches(Some("ssh")));
        assert!(!doubled.matches(Some("shell")));
    }

    #[test]
    fn backtracking_patterns_keep_the_full_match_anchoring() {
        let m = matcher("(?=term)term");
        assert!(m.matches(Some("term")));
        assert!(
            !m.matches(Some("terminal")),
            "fullmatch, as Python's re.fullmatch"
        );
        assert!(!m.matches(Some("xterm")));
        assert!(!matcher("(?!x)a|b").matches(Some("ab")));
    }

    #[test]
    fn linear_patterns_stay_on_the_regex_crate() {
        let ToolMatcher::Pattern(pattern) = matcher("terminal|read_.*") else {
            panic!("compiles");
        };
        assert!(!pattern.needs_backtracking());
    }

    #[test]
    fn only_a_pattern_neither_engine_accepts_is_uncompilable() {
        assert!(
            ToolMatcher::build(Some("foo[bar"))
                .matcher
                .is_uncompilable()
        );
        assert!(ToolMatcher::build(Some("(?<!a")).matcher.is_uncompilable());
        assert!(
            !ToolMatcher::build(Some("(?<!a)b"))
                .matcher
                .is_uncompilable()
        );
        assert!(!ToolMatcher::build(None).matcher.is_uncompilable());
    }
}
