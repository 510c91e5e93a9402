//! Which accesses a sandboxed run was denied, read from what the process
//! itself saw: the kernel's errors as programs print them on stderr.
//!
//! Heuristics (no audit log is needed): a stderr line is a denial when it
//! carries the text of `EACCES` ("Permission denied"), `EPERM` ("Operation
//! not permitted"), `EROFS` ("Read-only file system"), or of a network that
//! is not there (`ENETUNREACH` "Network is unreachable", "Connection
//! refused" on loopback is not counted: the port is simply closed), or the
//! errno names themselves. The line is reported whole, as the program
//! names the path or address it tried. A run can be denied something and
//! print nothing: `hooks test --explain` says so when a sandboxed run
//! failed without any such line.

/// One denied access seen on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Denial {
    /// What was denied: `filesystem`, `read-only`, `network` or `operation`.
    pub kind: &'static str,
    /// The stderr line that says so.
    pub line: String,
}

const MARKS: &[(&str, &str)] = &[
    ("Permission denied", "filesystem"),
    ("EACCES", "filesystem"),
    ("Read-only file system", "read-only"),
    ("EROFS", "read-only"),
    ("Network is unreachable", "network"),
    ("ENETUNREACH", "network"),
    ("Cannot assign requested address", "network"),
    ("Temporary failure in name resolution", "network"),
    ("Operation not permitted", "operation"),
    ("EPERM", "operation"),
];

/// The denials `stderr` reports, in order, one per line.
pub fn denials(stderr: &str) -> Vec<Denial> {
    stderr
        .lines()
        .filter_map(|line| {
            MARKS
                .iter()
                .find(|(mark, _)| line.contains(mark))
                .map(|(_, kind)| Denial {
                    kind,
                    line: line.trim().to_owned(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn denied_lines_are_found_and_classed() {
        let stderr = "ok\ncat: /home/u/.ssh/id_ed25519: Permission denied\n\
                      curl: (7) Couldn't connect: Network is unreachable\n\
                      touch: cannot touch 'x': Read-only file system\n";
        let found = denials(stderr);
        let kinds: Vec<&str> = found.iter().map(|denial| denial.kind).collect();
        assert_eq!(kinds, ["filesystem", "network", "read-only"]);
        assert!(found[0].line.contains(".ssh/id_ed25519"));
        assert!(denials("all fine\n").is_empty());
    }
}
