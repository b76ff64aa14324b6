//! Namespaces: the store builds each from typed parts (a plugin and its
//! bucket, a session, a user, or one of the host's own features) and
//! encodes it injectively, so that no bucket, session, user or key name can
//! reach into another namespace.
//!
//! The encoding is a kind letter, then each part of the kind's fixed number
//! of parts after a `:`. A part keeps the bytes `A-Z a-z 0-9 _ -` and writes
//! every other byte as `%HH` (upper-case hex), so an encoded part holds no
//! `:` and the parts split back exactly; nor does it hold `{`, `}`, `*`,
//! `?`, `[`, `]` or `\`, which the Redis layout and glob patterns give a
//! meaning to. The backends end the encoding with `}` before the key, and
//! no encoding holds `}`: the stored key `encoding}key` determines both.

use crate::error::NameError;

/// The longest name a part of a namespace may have, in bytes.
pub const MAX_NAME_LEN: usize = 1024;

/// A namespace of the store: the data of one plugin's bucket in one scope,
/// or of one feature of the host.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Namespace {
    encoded: String,
}

impl Namespace {
    /// A plugin's bucket shared by all its callers (`scope = "plugin"`).
    pub fn plugin(plugin: &str, bucket: &str) -> Result<Namespace, NameError> {
        Namespace::build('p', &[("plugin", plugin), ("bucket", bucket)])
    }

    /// A plugin's bucket as one client session sees it (`scope =
    /// "session"`).
    pub fn session(plugin: &str, bucket: &str, session: &str) -> Result<Namespace, NameError> {
        Namespace::build(
            's',
            &[("plugin", plugin), ("bucket", bucket), ("session", session)],
        )
    }

    /// A plugin's bucket as one user (an OAuth subject, qualified by its
    /// issuer as the caller sees fit) sees it (`scope = "user"`).
    pub fn user(plugin: &str, bucket: &str, user: &str) -> Result<Namespace, NameError> {
        Namespace::build(
            'u',
            &[("plugin", plugin), ("bucket", bucket), ("user", user)],
        )
    }

    /// The server's tasks (issue 46).
    pub fn tasks() -> Namespace {
        Namespace::fixed('t')
    }

    /// The server's rate and concurrency limits.
    pub fn limits() -> Namespace {
        Namespace::fixed('l')
    }

    /// The server's MCP sessions (2025-11-25 and earlier).
    pub fn sessions() -> Namespace {
        Namespace::fixed('m')
    }

    /// The server's notifications between replicas (publish/subscribe).
    pub fn notifications() -> Namespace {
        Namespace::fixed('n')
    }

    /// The injective encoding (the module's documentation describes it).
    pub fn encoded(&self) -> &str {
        &self.encoded
    }

    /// The stored form of a key: the encoding, `}`, the key. As no
    /// encoding holds `}`, it determines both the namespace and the key.
    /// The embedded store keys its entries so, and both backends their
    /// publish/subscribe channels.
    pub fn stored_key(&self, key: &[u8]) -> Vec<u8> {
        join(&self.encoded, key)
    }

    fn fixed(kind: char) -> Namespace {
        Namespace {
            encoded: kind.to_string(),
        }
    }

    fn build(kind: char, parts: &[(&'static str, &str)]) -> Result<Namespace, NameError> {
        let mut encoded = kind.to_string();
        for &(part, name) in parts {
            if name.len() > MAX_NAME_LEN {
                return Err(NameError {
                    part,
                    len: name.len(),
                    max: MAX_NAME_LEN,
                });
            }
            encoded.push(':');
            escape_into(name.as_bytes(), &mut encoded);
        }
        Ok(Namespace { encoded })
    }
}

/// The stored form of `key` in the namespace encoded as `encoded`.
pub(crate) fn join(encoded: &str, key: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded.len() + 1 + key.len());
    out.extend_from_slice(encoded.as_bytes());
    out.push(b'}');
    out.extend_from_slice(key);
    out
}

/// Whether a byte stands for itself in an encoded part.
fn is_plain(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-'
}

fn escape_into(name: &[u8], out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &byte in name {
        if is_plain(byte) {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0x0f)]));
        }
    }
}

/// The kind letter and the decoded parts of an encoding: the inverse of
/// [`Namespace::encoded`], which the tests use to show the encoding is
/// injective.
pub fn decode(encoded: &str) -> Option<(char, Vec<Vec<u8>>)> {
    let mut pieces = encoded.split(':');
    let mut kind_piece = pieces.next()?.chars();
    let kind = kind_piece.next()?;
    if kind_piece.next().is_some() {
        return None;
    }
    let parts = pieces.map(unescape).collect::<Option<Vec<_>>>()?;
    let arity = match kind {
        'p' => 2,
        's' | 'u' => 3,
        't' | 'l' | 'm' | 'n' => 0,
        _ => return None,
    };
    (parts.len() == arity).then_some((kind, parts))
}

fn unescape(part: &str) -> Option<Vec<u8>> {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == b'%' {
            let hex = part.get(at + 1..at + 3)?;
            let value = u8::from_str_radix(hex, 16).ok()?;
            // Only the canonical form: upper-case hex of an escaped byte.
            if is_plain(value) || hex.bytes().any(|b| b.is_ascii_lowercase()) {
                return None;
            }
            out.push(value);
            at += 3;
        } else if is_plain(byte) {
            out.push(byte);
            at += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_in_names_do_not_move_the_boundary() {
        let a = Namespace::plugin("a:b", "c").unwrap();
        let b = Namespace::plugin("a", "b:c").unwrap();
        assert_ne!(a, b);
        assert_eq!(a.encoded(), "p:a%3Ab:c");
        assert_eq!(b.encoded(), "p:a:b%3Ac");
        let empty = Namespace::plugin("", "").unwrap();
        assert_eq!(empty.encoded(), "p::");
        assert_ne!(
            Namespace::plugin("", "x").unwrap(),
            Namespace::plugin("x", "").unwrap()
        );
    }

    #[test]
    fn no_encoding_holds_a_brace_or_a_glob_character() {
        let ns = Namespace::user("*", "?[]{}\\%", "\u{0}é").unwrap();
        for c in ['{', '}', '*', '?', '[', ']', '\\'] {
            assert!(!ns.encoded().contains(c), "{c} in {}", ns.encoded());
        }
        assert_eq!(
            decode(ns.encoded()),
            Some((
                'u',
                vec![
                    b"*".to_vec(),
                    b"?[]{}\\%".to_vec(),
                    "\u{0}é".as_bytes().to_vec()
                ]
            ))
        );
    }

    #[test]
    fn an_over_long_name_is_refused_naming_its_part() {
        let long = "x".repeat(MAX_NAME_LEN + 1);
        let err = Namespace::session("p", "b", &long).unwrap_err();
        assert_eq!(err.part, "session");
        assert!(Namespace::session("p", "b", &long[1..]).is_ok());
    }

    #[test]
    fn the_host_namespaces_differ_from_each_other_and_from_plugins() {
        let all = [
            Namespace::tasks(),
            Namespace::limits(),
            Namespace::sessions(),
            Namespace::notifications(),
            Namespace::plugin("t", "").unwrap(),
        ];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
