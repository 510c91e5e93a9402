//! The Python both line-protocol workers share (`prelude.py`: the private,
//! high, close-on-exec protocol fds and the low fds kept free), put in front
//! of each worker script at compile time by [`line_worker_script!`], so the
//! plugin worker and the gateway-hook shim run one copy of that logic.
//!
//! [`line_worker_script!`]: crate::line_worker_script

/// The shared prelude: `high_dup`, `above_low_fds`, `open_protocol` and
/// their constants (`PROTOCOL_FD_BASE`, `LOW_FDS`).
pub const PROTOCOL_PRELUDE: &str = include_str!("prelude.py");

/// `first` then `second`, as `N` bytes (`N` is the sum of their lengths; for
/// [`line_worker_script!`](crate::line_worker_script)).
#[doc(hidden)]
pub const fn concat_bytes<const N: usize>(first: &str, second: &str) -> [u8; N] {
    let (first, second) = (first.as_bytes(), second.as_bytes());
    assert!(
        first.len() + second.len() == N,
        "N is the sum of the lengths"
    );
    let mut out = [0u8; N];
    let mut index = 0;
    while index < first.len() {
        out[index] = first[index];
        index += 1;
    }
    while index < N {
        out[index] = second[index - first.len()];
        index += 1;
    }
    out
}

/// A worker script (a `&'static str` constant expression, e.g. an
/// `include_str!`) with [`PROTOCOL_PRELUDE`] in front, as one constant.
#[macro_export]
macro_rules! line_worker_script {
    ($script:expr) => {{
        const SCRIPT: &str = $script;
        const LEN: usize = $crate::PROTOCOL_PRELUDE.len() + SCRIPT.len();
        const BYTES: [u8; LEN] = $crate::concat_bytes::<LEN>($crate::PROTOCOL_PRELUDE, SCRIPT);
        match ::core::str::from_utf8(&BYTES) {
            Ok(text) => text,
            Err(_) => panic!("a worker script is UTF-8"),
        }
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prelude_comes_first_then_the_script() {
        const SCRIPT: &str = crate::line_worker_script!("open_protocol()\n");
        assert!(SCRIPT.starts_with(PROTOCOL_PRELUDE));
        assert!(SCRIPT.ends_with("\n\nopen_protocol()\n"));
        assert_eq!(
            SCRIPT.len(),
            PROTOCOL_PRELUDE.len() + "open_protocol()\n".len()
        );
    }
}
