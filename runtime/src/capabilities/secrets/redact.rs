//! The redactor: one multi-pattern automaton (the `aho-corasick` crate),
//! built once when a plugin's policy is resolved, that finds every secret's
//! value and its encoded forms in text, bytes and JSON trees and replaces
//! each with `[redacted]`.
//!
//! The forms searched for each value: the value itself; its JSON string
//! escaping (with `/` also as `\/`); its percent-encoding under five common
//! sets of kept characters (every byte encoded, RFC 3986's unreserved ones,
//! those and `/`, `encodeURIComponent`'s, and form encoding with `+` for a
//! space), each with upper- and lower-case hex; and its base64, standard
//! and URL-safe, at each of the three alignments a value can have inside a
//! longer text. A base64 form is the run of characters that the value alone
//! decides (the one or two characters at each end that it shares with its
//! neighbours are left), so one form matches with and without padding; a
//! form shorter than [`MIN_BASE64`] characters (a value of 4 bytes or fewer)
//! is not searched, as it would match ordinary text.

use std::borrow::Cow;
use std::fmt;

use aho_corasick::AhoCorasick;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use serde_json::{Map, Value};

use super::REDACTED;

/// The shortest base64 form searched for.
pub const MIN_BASE64: usize = 6;

/// Finds and replaces the secrets' values and their encodings.
pub struct Redactor {
    automaton: AhoCorasick,
    /// For each pattern, the index of the value it encodes.
    owners: Vec<usize>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Redactor")
            .field("patterns", &self.owners.len())
            .finish()
    }
}

impl Redactor {
    /// The redactor of `values`; `None` when there are none (or all are
    /// empty), so that nothing is ever searched.
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Option<Redactor> {
        let mut patterns = Vec::new();
        let mut owners = Vec::new();
        for (i, value) in values.into_iter().enumerate() {
            for form in forms(value) {
                patterns.push(form);
                owners.push(i);
            }
        }
        if patterns.is_empty() {
            return None;
        }
        // Building fails only past the crate's size limits, far beyond what
        // a policy file's secrets make; without a redactor nothing would be
        // redacted, so such a policy gets one that matches the values alone.
        let automaton = AhoCorasick::new(&patterns).ok()?;
        Some(Redactor { automaton, owners })
    }

    /// How many patterns it searches for.
    pub fn patterns(&self) -> usize {
        self.owners.len()
    }

    /// The byte ranges of `haystack` that hold a secret in any form,
    /// overlapping matches merged, in order.
    fn spans(&self, haystack: &[u8]) -> Vec<(usize, usize)> {
        let mut found: Vec<(usize, usize)> = self
            .automaton
            .find_overlapping_iter(haystack)
            .map(|m| (m.start(), m.end()))
            .collect();
        if found.len() < 2 {
            return found;
        }
        found.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(found.len());
        for (start, end) in found {
            match merged.last_mut() {
                Some(last) if start < last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        merged
    }

    /// `haystack` with each span replaced by `[redacted]`.
    fn replace(haystack: &[u8], spans: &[(usize, usize)]) -> Vec<u8> {
        let mut out = Vec::with_capacity(haystack.len() + spans.len() * REDACTED.len());
        let mut at = 0;
        for &(start, end) in spans {
            out.extend_from_slice(&haystack[at..start]);
            out.extend_from_slice(REDACTED.as_bytes());
            at = end;
        }
        out.extend_from_slice(&haystack[at..]);
        out
    }

    /// `text` with every secret, in every form, replaced by `[redacted]`;
    /// borrowed when it holds none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let spans = self.spans(text.as_bytes());
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let out = Self::replace(text.as_bytes(), &spans);
        // A match of UTF-8 patterns in UTF-8 text starts and ends on
        // character boundaries, so this is valid UTF-8; lossy all the same.
        Cow::Owned(
            String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into()),
        )
    }

    /// Redacts `text` in place.
    pub fn redact_string(&self, text: &mut String) {
        if let Cow::Owned(redacted) = self.redact(text) {
            *text = redacted;
        }
    }

    /// Redacts binary data in place: the secrets' bytes in any form become
    /// the bytes of `[redacted]`.
    pub fn redact_bytes(&self, data: &mut Vec<u8>) {
        let spans = self.spans(data);
        if !spans.is_empty() {
            *data = Self::replace(data, &spans);
        }
    }

    /// Redacts a JSON tree: every string, every object key, and every
    /// number whose text holds a secret (it becomes the string
    /// `[redacted]`). A key that becomes one the object already has gets a
    /// `#2`, `#3`… suffix, so that no member is lost.
    pub fn redact_json(&self, value: &mut Value) {
        match value {
            Value::String(s) => self.redact_string(s),
            Value::Number(n) => {
                if self.automaton.is_match(n.to_string().as_bytes()) {
                    *value = Value::String(REDACTED.into());
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_json(v)),
            Value::Object(map) => {
                if map.keys().any(|k| self.automaton.is_match(k.as_bytes())) {
                    let mut renamed = Map::with_capacity(map.len());
                    for (key, v) in std::mem::take(map) {
                        let key = self.redact(&key).into_owned();
                        let mut unique = key.clone();
                        let mut n = 2;
                        while renamed.contains_key(&unique) {
                            unique = format!("{key}#{n}");
                            n += 1;
                        }
                        renamed.insert(unique, v);
                    }
                    *map = renamed;
                }
                map.values_mut().for_each(|v| self.redact_json(v));
            }
            Value::Null | Value::Bool(_) => {}
        }
    }

    /// The index of the first value found in `text` in any form.
    pub fn find(&self, text: &str) -> Option<usize> {
        self.automaton
            .find(text)
            .and_then(|m| self.owners.get(m.pattern().as_usize()).copied())
    }

    /// The index of a value found in any form in a JSON tree: in a string,
    /// a key, or a number's text. On the tree, not its text: a value that
    /// is itself JSON-escaped text is found as such.
    pub fn find_json(&self, value: &Value) -> Option<usize> {
        match value {
            Value::String(s) => self.find(s),
            Value::Number(n) => self.find(&n.to_string()),
            Value::Array(items) => items.iter().find_map(|v| self.find_json(v)),
            Value::Object(map) => map
                .iter()
                .find_map(|(k, v)| self.find(k).or_else(|| self.find_json(v))),
            Value::Null | Value::Bool(_) => None,
        }
    }
}

/// Which bytes a percent-encoder keeps as they are.
type Keep = fn(u8) -> bool;

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// The encoders: what each keeps, and whether a space becomes `+`.
const PERCENT: [(Keep, bool); 5] = [
    // Every byte encoded.
    (|_| false, false),
    // RFC 3986's unreserved characters kept (Go's `url.PathEscape` less
    // its sub-delimiters, Rust's `urlencoding`).
    (unreserved, false),
    // Python's `urllib.parse.quote`: unreserved and `/`.
    (|b| unreserved(b) || b == b'/', false),
    // JavaScript's `encodeURIComponent`.
    (
        |b| unreserved(b) || matches!(b, b'!' | b'\'' | b'(' | b')' | b'*'),
        false,
    ),
    // application/x-www-form-urlencoded (HTML forms, Java's `URLEncoder`,
    // Python's `quote_plus` keeps `~` too, matched by the second set when
    // the value has no space).
    (
        |b| b.is_ascii_alphanumeric() || matches!(b, b'*' | b'-' | b'.' | b'_'),
        true,
    ),
];

fn percent(value: &[u8], keep: Keep, plus: bool, upper: bool) -> String {
    let mut out = String::with_capacity(value.len() * 3);
    for &b in value {
        if keep(b) {
            out.push(char::from(b));
        } else if plus && b == b' ' {
            out.push('+');
        } else if upper {
            out.push_str(&format!("%{b:02X}"));
        } else {
            out.push_str(&format!("%{b:02x}"));
        }
    }
    out
}

/// The characters of `value`'s base64 that `value` alone decides when it
/// starts `offset` bytes (0, 1 or 2) into a 3-byte group.
fn base64_core(engine: &impl base64::Engine, value: &[u8], offset: usize) -> Option<String> {
    let mut bytes = vec![0; offset];
    bytes.extend_from_slice(value);
    let encoded = engine.encode(&bytes);
    // Character j holds bits 6j..6j+6; the value's are 8·offset..8·(offset+n).
    let first = (8 * offset).div_ceil(6);
    let end = 8 * (offset + value.len()) / 6;
    let core = encoded.get(first..end)?;
    (core.len() >= MIN_BASE64).then(|| core.to_string())
}

/// Every form of `value` searched for, without repeats.
pub fn forms(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    let bytes = value.as_bytes();
    let mut out = vec![value.to_string()];
    let json = serde_json::to_string(value).unwrap_or_default();
    let json = json
        .strip_prefix('"')
        .and_then(|j| j.strip_suffix('"'))
        .unwrap_or(value);
    out.push(json.to_string());
    out.push(json.replace('/', "\\/"));
    for (keep, plus) in PERCENT {
        for upper in [true, false] {
            out.push(percent(bytes, keep, plus, upper));
        }
    }
    for offset in 0..3 {
        out.extend(base64_core(&STANDARD_NO_PAD, bytes, offset));
        out.extend(base64_core(&URL_SAFE_NO_PAD, bytes, offset));
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

    /// Secrets with every kind of character an encoding treats specially.
    const SECRETS: [&str; 4] = [
        "AKIAIOSFODNN7EXAMPLE",
        "s3cr3t/Tok+en=~!*'()",
        "pass word \"quoted\" \\ back/slash",
        "ünïcødé-ключ-秘密",
    ];

    /// An encoding of a whole text, by another encoder than the
    /// redactor's own: its name, and the function.
    type Encoding = (&'static str, fn(&str) -> String);

    const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'!')
        .remove(b'~')
        .remove(b'*')
        .remove(b'\'')
        .remove(b'(')
        .remove(b')');
    const FORM: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'*')
        .remove(b'-')
        .remove(b'.')
        .remove(b'_');
    const UNRESERVED: &AsciiSet = &NON_ALPHANUMERIC
        .remove(b'-')
        .remove(b'_')
        .remove(b'.')
        .remove(b'~');

    fn encodings() -> Vec<Encoding> {
        vec![
            ("exact", |t| t.to_string()),
            ("json", |t| {
                let j = serde_json::to_string(t).unwrap();
                j[1..j.len() - 1].to_string()
            }),
            ("json with \\/", |t| {
                let j = serde_json::to_string(t).unwrap();
                j[1..j.len() - 1].replace('/', "\\/")
            }),
            ("percent, all", |t| {
                t.bytes().map(|b| format!("%{b:02X}")).collect()
            }),
            ("percent, all, lower", |t| {
                t.bytes().map(|b| format!("%{b:02x}")).collect()
            }),
            ("percent, unreserved", |t| {
                utf8_percent_encode(t, UNRESERVED).to_string()
            }),
            ("percent, unreserved, lower", |t| {
                lower_hex(&utf8_percent_encode(t, UNRESERVED).to_string())
            }),
            ("percent, component", |t| {
                utf8_percent_encode(t, COMPONENT).to_string()
            }),
            ("percent, component, lower", |t| {
                lower_hex(&utf8_percent_encode(t, COMPONENT).to_string())
            }),
            ("percent, form", |t| {
                t.split(' ')
                    .map(|part| utf8_percent_encode(part, FORM).to_string())
                    .collect::<Vec<_>>()
                    .join("+")
            }),
            ("base64", |t| STANDARD.encode(t)),
            ("base64, no padding", |t| STANDARD_NO_PAD.encode(t)),
            ("base64url", |t| URL_SAFE.encode(t)),
            ("base64url, no padding", |t| URL_SAFE_NO_PAD.encode(t)),
        ]
    }

    fn lower_hex(encoded: &str) -> String {
        let mut out = String::new();
        let mut hex = 0;
        for c in encoded.chars() {
            if c == '%' {
                hex = 2;
                out.push(c);
            } else if hex > 0 {
                hex -= 1;
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }

    /// Text before and after the secret: none, and 1, 2 and 3 bytes (every
    /// base64 alignment), and longer text with a repeat of the secret.
    const AROUND: [(&str, &str); 6] = [
        ("", ""),
        ("a", "b"),
        ("ab", "cd"),
        ("abc", "def"),
        ("the token is: ", " (keep it)"),
        ("x", "y{SECRET}z"),
    ];

    fn redactor() -> Redactor {
        Redactor::new(SECRETS).unwrap()
    }

    /// Whether `encoded` (an encoding of `prefix + secret + suffix`) still
    /// shows the secret: for base64, any run of 4 characters the secret
    /// alone decides; otherwise the secret's encoding itself.
    fn shows(redacted: &str, encoding: &Encoding, prefix: &str, secret: &str) -> bool {
        if encoding.0.starts_with("base64") {
            let full = (encoding.1)(&format!("{prefix}{secret}"));
            let first = (8 * prefix.len()).div_ceil(6);
            let end = 8 * (prefix.len() + secret.len()) / 6;
            let core = &full[first..end];
            return core
                .as_bytes()
                .windows(4)
                .any(|w| redacted.contains(std::str::from_utf8(w).unwrap()));
        }
        redacted.contains(&(encoding.1)(secret))
    }

    #[test]
    fn every_secret_in_every_encoding_at_every_position_is_redacted() {
        let r = redactor();
        let mut cases = 0;
        for secret in SECRETS {
            for encoding in encodings() {
                for (prefix, suffix) in AROUND {
                    let plain = format!("{prefix}{secret}{}", suffix.replace("{SECRET}", secret));
                    let encoded = (encoding.1)(&plain);
                    let redacted = r.redact(&encoded);
                    let case = format!(
                        "{secret:?} {} {prefix:?}…{suffix:?}: {redacted}",
                        encoding.0
                    );
                    assert!(redacted.contains(REDACTED), "{case}");
                    assert!(!shows(&redacted, &encoding, prefix, secret), "{case}");
                    if suffix.contains("{SECRET}") && !encoding.0.starts_with("base64") {
                        assert_eq!(redacted.matches(REDACTED).count(), 2, "{case}");
                    }
                    // The same in bytes and in a JSON string and key.
                    let mut bytes = encoded.clone().into_bytes();
                    r.redact_bytes(&mut bytes);
                    assert_eq!(bytes, redacted.as_bytes(), "{case}");
                    let mut map = Map::new();
                    map.insert(encoded.clone(), serde_json::json!([encoded.clone()]));
                    let mut json = Value::Object(map);
                    r.redact_json(&mut json);
                    let (key, value) = json.as_object().unwrap().iter().next().unwrap();
                    assert_eq!(key, &*redacted, "{case}");
                    assert_eq!(value[0], *redacted, "{case}");
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, SECRETS.len() * encodings().len() * AROUND.len());
    }

    #[test]
    fn text_without_a_secret_is_borrowed_and_left_alone() {
        let r = redactor();
        for text in [
            "",
            "plain",
            "AKIAIOSFODNN7EXAMPL",
            "s3cr3t",
            "ünïcødé",
            "QUtJQUlP",
        ] {
            assert!(
                matches!(r.redact(text), Cow::Borrowed(t) if t == text),
                "{text}"
            );
        }
        assert!(Redactor::new([]).is_none());
        assert!(Redactor::new([""]).is_none());
    }

    #[test]
    fn overlapping_and_adjacent_secrets_leave_no_part_of_either() {
        let r = Redactor::new(["abcdefgh12", "fgh12xyz89", "xyz89QRSTU"]).unwrap();
        assert_eq!(r.redact("abcdefgh12xyz89"), REDACTED);
        assert_eq!(r.redact("<abcdefgh12xyz89QRSTU>"), format!("<{REDACTED}>"));
        assert_eq!(
            r.redact("abcdefgh12abcdefgh12"),
            format!("{REDACTED}{REDACTED}")
        );
        // One secret inside another.
        let r = Redactor::new(["inner-part", "outer-inner-part-end"]).unwrap();
        assert_eq!(r.redact("[outer-inner-part-end]"), format!("[{REDACTED}]"));
        assert_eq!(r.redact("inner-part-end"), format!("{REDACTED}-end"));
        // Whichever ends first: either names a secret the text holds.
        assert!(r.find("x outer-inner-part-end").is_some());
        assert_eq!(r.find("x inner-part"), Some(0));
        assert_eq!(r.find("nothing"), None);
    }

    #[test]
    fn json_is_redacted_on_the_tree_whatever_escapes_the_text_used() {
        let r = Redactor::new(["tok/en\"with\\escapes", "1234567890123"]).unwrap();
        // The guest's JSON escapes `/` as `\/`, `"` and `\` as usual, and a
        // letter as `\u` + hex: parsed, the string is the secret.
        for text in [
            r#"{"k": "tok\/en\"with\\escapes"}"#,
            r#"{"k": "tok/en\u0022with\u005cescapes"}"#,
            r#"{"k": "\u0074ok\/en\"with\\escapes"}"#,
        ] {
            let mut v: Value = serde_json::from_str(text).unwrap();
            r.redact_json(&mut v);
            assert_eq!(v, serde_json::json!({"k": REDACTED}), "{text}");
        }
        // Keys, nesting, numbers, and a key that collides once redacted.
        let mut v = serde_json::json!({
            "a": {"b": [1, "x tok/en\"with\\escapes y", {"tok/en\"with\\escapes": true}]},
            "n": 1234567890123u64,
            "tok/en\"with\\escapes": 1,
            REDACTED: 2,
        });
        r.redact_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({
                "a": {"b": [1, format!("x {REDACTED} y"), {REDACTED: true}]},
                "n": REDACTED,
                REDACTED: 2,
                format!("{REDACTED}#2"): 1,
            })
        );
    }

    #[test]
    fn short_values_are_searched_as_themselves_but_not_as_base64() {
        let four = forms("abcd");
        assert!(four.contains(&"abcd".to_string()));
        assert!(four.iter().all(|f| !f.starts_with("YWJj")), "{four:?}");
        // From 5 bytes on, every alignment has a form.
        let five = forms("abcde");
        for offset in 0..3 {
            assert!(base64_core(&STANDARD_NO_PAD, b"abcde", offset).is_some());
        }
        assert!(five.len() > 3);
    }

    #[test]
    fn the_debug_text_shows_no_value() {
        let r = redactor();
        let printed = format!("{r:?}");
        assert!(SECRETS.iter().all(|s| !printed.contains(s)), "{printed}");
    }
}
