//! Tool-name matchers: anchored full-match regexes shared by shell hooks and outbound webhooks.

use regex::Regex;

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
    regex: Regex,
}

impl ToolPattern {
    /// The pattern as configured (trimmed), without the anchors.
    pub fn as_str(&self) -> &str {
        &self.pattern
    }

    /// Whether the whole of `name` matches the pattern.
    pub fn is_match(&self, name: &str) -> bool {
        self.regex.is_match(name)
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
        match Regex::new(&format!("^(?:{pattern})$")) {
            Ok(regex) => BuiltMatcher {
                matcher: ToolMatcher::Pattern(ToolPattern {
                    pattern: pattern.to_owned(),
                    regex,
                }),
                warning: None,
            },
            Err(error) => BuiltMatcher {
                matcher: ToolMatcher::Literal(pattern.to_owned()),
                warning: Some(format!(
                    "matcher '{pattern}' is invalid ({}) — treating as literal equality",
                    first_line(&error.to_string())
                )),
            },
        }
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
}
