//! Opaque, stable `tools/list` cursors.
//!
//! A cursor holds the name of the last tool of the page it ends (keyset
//! pagination), so it stays meaningful when the catalog changes between
//! pages: the next page starts after that name, and no tool is repeated.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

const PREFIX: &str = "tools/v1:";

/// Why a cursor was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cursor {0:?}: pass back a nextCursor exactly as the server returned it")]
pub struct InvalidCursor(pub String);

/// The cursor of a page that ends with the tool `last`.
pub fn encode(last: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{PREFIX}{last}"))
}

/// The tool name a cursor ends after.
pub fn decode(cursor: &str) -> Result<String, InvalidCursor> {
    let invalid = || InvalidCursor(cursor.chars().take(100).collect());
    let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
    let text = String::from_utf8(bytes).map_err(|_| invalid())?;
    text.strip_prefix(PREFIX)
        .filter(|name| !name.is_empty())
        .map(str::to_string)
        .ok_or_else(invalid)
}

/// The page of `names` (sorted) that starts after `after`, with at most
/// `size` items: its index range and whether more remain.
pub fn page(names: &[&str], after: Option<&str>, size: usize) -> (std::ops::Range<usize>, bool) {
    let start = after.map_or(0, |a| names.partition_point(|n| *n <= a));
    let end = start.saturating_add(size.max(1)).min(names.len());
    (start..end, end < names.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_garbage() {
        let c = encode("tool_07");
        assert_eq!(decode(&c).as_deref(), Ok("tool_07"));
        assert!(decode("not a cursor!").is_err());
        assert!(decode(&URL_SAFE_NO_PAD.encode("other:tool")).is_err());
        assert!(decode(&URL_SAFE_NO_PAD.encode(PREFIX)).is_err());
        assert!(decode("").is_err());
    }

    #[test]
    fn pages_cover_everything_once() {
        let names = ["a", "b", "c", "d", "e"];
        assert_eq!(page(&names, None, 2), (0..2, true));
        assert_eq!(page(&names, Some("b"), 2), (2..4, true));
        assert_eq!(page(&names, Some("d"), 2), (4..5, false));
        assert_eq!(page(&names, Some("e"), 2), (5..5, false));
        assert_eq!(page(&names, None, 10), (0..5, false));
    }

    #[test]
    fn pages_stay_stable_when_the_list_changes() {
        // "b" was removed after the first page was served; the next page
        // still starts after it.
        let names = ["a", "c", "d"];
        assert_eq!(page(&names, Some("b"), 2), (1..3, false));
    }
}
