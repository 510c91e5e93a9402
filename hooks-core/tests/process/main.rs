//! The process supervisor fault suite.
