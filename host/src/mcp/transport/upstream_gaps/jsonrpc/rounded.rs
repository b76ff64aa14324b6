//! Finds, in a `tools/call` message's text, the argument numbers that
//! serde_json reads as an integral double they are not (`5.0000000000000001`
//! as 5, `1e-400` as 0): serde_json without `arbitrary_precision` (which
//! would change every number of the build) keeps no number's text, so only
//! the bytes can tell. Admission then holds each to the tool's schema as
//! written ([`RoundedNumbers`]).
//!
//! The scan runs on a message [`super::check`] has already read as JSON, in
//! one pass without building a tree; it skips strings and looks closer only at numbers in float form (a fraction or an exponent)
//! or integers beyond 64 bits, the ones serde_json reads as doubles.

use crate::runtime::{RoundedNumber, RoundedNumbers};

/// A container the scan is in, with where the next value goes.
enum Frame {
    /// An object, and the key of the value being read (once its key is).
    Object { key: Option<String> },
    /// An array, and the index of the value being read.
    Array { index: usize },
}

/// The rounded numbers under `params.arguments` of the JSON message
/// `bytes` (valid JSON, as [`super::check`] found it). Empty for any other
/// message shape.
pub(super) fn in_arguments(bytes: &[u8]) -> RoundedNumbers {
    let mut found = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => {
                stack.push(Frame::Object { key: None });
                i += 1;
            }
            b'[' => {
                stack.push(Frame::Array { index: 0 });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b',' => {
                match stack.last_mut() {
                    Some(Frame::Object { key }) => *key = None,
                    Some(Frame::Array { index }) => *index += 1,
                    None => {}
                }
                i += 1;
            }
            b'"' => {
                let end = string_end(bytes, i);
                // A key is read only where the path can still lead to the
                // arguments; a value's text is skipped.
                let wanted = stack.len() <= 2 || leads_to_arguments(&stack);
                if let Some(Frame::Object { key: key @ None }) = stack.last_mut()
                    && wanted
                {
                    *key =
                        Some(serde_json::from_slice::<String>(&bytes[i..end]).unwrap_or_default());
                }
                i = end;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                let text = std::str::from_utf8(&bytes[start..i]).unwrap_or_default();
                if read_as_a_double(text)
                    && let Some(pointer) = argument_pointer(&stack)
                    && let Some(number) = RoundedNumber::of(pointer, text)
                {
                    found.push(number);
                }
            }
            _ => i += 1,
        }
    }
    RoundedNumbers(found)
}

/// The index just past the string that starts (with its quote) at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(at) = bytes
        .get(i..)
        .and_then(|rest| rest.iter().position(|b| matches!(b, b'"' | b'\\')))
    {
        i += at;
        if bytes[i] == b'\\' {
            i += 2;
        } else {
            return i + 1;
        }
    }
    bytes.len()
}

/// Whether serde_json reads the number `text` as a double: one in float
/// form, or an integer neither `i64` nor `u64` holds.
fn read_as_a_double(text: &str) -> bool {
    text.contains(['.', 'e', 'E']) || (text.parse::<i64>().is_err() && text.parse::<u64>().is_err())
}

/// Whether the scan is inside `params.arguments`.
fn leads_to_arguments(stack: &[Frame]) -> bool {
    matches!(
        stack,
        [Frame::Object { key: Some(p) }, Frame::Object { key: Some(a) }, ..]
            if p == "params" && a == "arguments"
    )
}

/// The JSON pointer within `params.arguments` of the value the scan is at,
/// or `None` when it is not inside them.
fn argument_pointer(stack: &[Frame]) -> Option<String> {
    if !leads_to_arguments(stack) || stack.len() < 3 {
        return None;
    }
    let inside = &stack[2..];
    let mut pointer = String::new();
    for frame in inside {
        pointer.push('/');
        match frame {
            Frame::Object { key: Some(key) } => {
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
            }
            Frame::Object { key: None } => return None,
            Frame::Array { index } => pointer.push_str(&index.to_string()),
        }
    }
    Some(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(message: &str) -> Vec<(String, String)> {
        in_arguments(message.as_bytes())
            .0
            .into_iter()
            .map(|n| (n.pointer, n.written))
            .collect()
    }

    fn pair(p: &str, w: &str) -> (String, String) {
        (p.to_string(), w.to_string())
    }

    #[test]
    fn finds_rounded_numbers_at_their_pointers() {
        let message = r#"{"jsonrpc":"2.0","id":1.0e-400,"method":"tools/call","params":{"name":"t","_meta":{"x":1e-400},"arguments":{"a":5.0000000000000001,"b":[1,2.5,{"c/d~":-1e-400}],"s":"9.0000000000000001 \" 1e-400","e":5.0,"big":18446744073709551617,"u":18446744073709551615,"k":{"":4.99999999999999999}}}}"#;
        assert_eq!(
            found(message),
            vec![
                pair("/a", "5.0000000000000001"),
                pair("/b/2/c~1d~0", "-1e-400"),
                pair("/big", "18446744073709551617"),
                pair("/k/", "4.99999999999999999"),
            ]
        );
    }

    #[test]
    fn arguments_before_name_and_whitespace() {
        let message = "{ \"params\" : { \"arguments\" : { \"n\" : [ 0 , 1e-999 ] } , \"name\" : \"t\" } , \"method\" : \"tools/call\" , \"id\" : 2 , \"jsonrpc\" : \"2.0\" }";
        assert_eq!(found(message), vec![pair("/n/1", "1e-999")]);
    }

    #[test]
    fn nothing_outside_the_arguments_or_when_exact() {
        assert!(found(r#"{"params":{"arguments":{"a":5.0,"b":0.1,"c":1e22}}}"#).is_empty());
        assert!(found(r#"{"params":{"other":{"a":1e-400}},"arguments":{"a":1e-400}}"#).is_empty());
        assert!(found(r#"[{"params":{"arguments":{"a":1e-400}}}]"#).is_empty());
        assert!(found(r#"{"params":{"arguments":1e-400}}"#).is_empty());
        assert!(found("").is_empty());
    }

    #[test]
    fn keys_with_escapes_are_decoded() {
        let message = r#"{"params":{"arguments":{"\u0061\\\"":1e-400}}}"#;
        assert_eq!(found(message), vec![pair("/a\\\"", "1e-400")]);
    }
}
