//! The payload struct each thread decodes into, kept across calls.
//!
//! A typed hook's payload is decoded in place
//! ([`HookPayload::decode_in_place`](hermes_hooks_core::payloads::HookPayload::decode_in_place))
//! into a struct this thread kept from its previous call of the same event,
//! so its strings, maps and arrays keep their capacity and a call allocates
//! nothing for a payload shaped like the last one. The hook only borrows it.

use std::any::Any;
use std::cell::RefCell;

/// Payloads whose JSON is larger than this are decoded into a struct that is
/// dropped after the call: one huge payload must not pin its memory for the
/// thread's life.
pub(crate) const MAX_KEPT_PAYLOAD_BYTES: usize = 64 * 1024;

thread_local! {
    /// One kept payload per payload type this thread decoded (a plugin has
    /// one hook per event, so a handful at most).
    static KEPT: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// Runs `body` on this thread's kept payload of type `P`, or on a fresh one
/// when the payload is large (`json_len`), when a call on this thread is
/// already using the kept payloads (a hook calling into the plugin again),
/// or while the thread is being torn down.
pub(crate) fn with_payload<P: Default + 'static, R>(
    json_len: usize,
    body: impl FnOnce(&mut P) -> R,
) -> R {
    if json_len > MAX_KEPT_PAYLOAD_BYTES {
        return body(&mut P::default());
    }
    let mut body = Some(body);
    let kept = KEPT.try_with(|kept| {
        let mut kept = kept.try_borrow_mut().ok()?;
        let index = match kept.iter().position(|slot| slot.is::<P>()) {
            Some(index) => index,
            None => {
                kept.push(Box::new(P::default()));
                kept.len() - 1
            }
        };
        let payload = kept[index].downcast_mut::<P>()?;
        body.take().map(|body| body(payload))
    });
    match (kept, body) {
        (Ok(Some(result)), _) => result,
        (_, Some(body)) => body(&mut P::default()),
        // `body` ran but produced no value: impossible, as it is only
        // taken right before it is called and its result wrapped in `Some`.
        (_, None) => unreachable!("the body ran and returned"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_keeps_one_payload_per_type_and_nested_calls_get_fresh_ones() {
        with_payload::<String, _>(3, |kept| kept.push_str("abc"));
        with_payload::<Vec<u8>, _>(1, |kept| kept.push(1));
        let seen = with_payload::<String, _>(3, |kept| {
            let outer = kept.clone();
            // A call nested in a call (the kept payloads are in use) gets a fresh one.
            let inner = with_payload::<String, _>(3, |fresh| fresh.clone());
            (outer, inner)
        });
        assert_eq!(seen, ("abc".to_owned(), String::new()));
        assert_eq!(with_payload::<Vec<u8>, _>(1, |kept| kept.clone()), [1]);
        // A large payload gets a fresh struct that is not kept.
        with_payload::<String, _>(MAX_KEPT_PAYLOAD_BYTES + 1, |fresh| {
            assert!(fresh.is_empty());
            fresh.push_str("big");
        });
        assert_eq!(with_payload::<String, _>(3, |kept| kept.clone()), "abc");
        // Another thread has its own.
        let other = std::thread::spawn(|| with_payload::<String, _>(3, |kept| kept.clone()));
        assert_eq!(other.join().ok(), Some(String::new()));
    }
}
