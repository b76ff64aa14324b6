//! How the host reads a request's path before an allow-list prefix judges
//! it: normalised per RFC 3986 §6.2.2 (percent-encoded unreserved
//! characters decoded, other escapes' hex digits upper-cased), and refused
//! when it holds a dot-segment, or a backslash, in any encoding.
//!
//! Servers resolve `..` themselves, after decoding in ways that differ from
//! one to the next (`%2e`, `%2f` and `%5c` decoded, `\` read as `/`, `;`
//! parameters dropped, escapes decoded twice), so no one normalisation is
//! the server's. A path prefix means what it says only if nothing in the
//! path can climb out of it: the refusal covers every form any of those
//! readings would turn into a dot-segment.

use percent_encoding::percent_decode;

/// The most layers of percent-encoding the host peels off when looking for
/// a dot-segment (`%252e` is two); a path encoded deeper is refused.
pub const MAX_DECODINGS: usize = 4;

/// Why the host refuses a path, naming the rule (see `docs/policy.md`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathProblem {
    /// A reading of the path holds what a prefix cannot be judged by.
    #[error("its path {0}; {RULE}")]
    Holds(&'static str),
    /// Encoded more times over than the host decodes.
    #[error("its path is percent-encoded more than {MAX_DECODINGS} times over; {RULE}")]
    TooDeep,
}

const RULE: &str = "the host refuses a path holding a dot-segment (`.` or `..`), a backslash or a control character, in any encoding, so that an allow-list path prefix cannot be climbed out of; no policy key grants it (send the path the server should act on)";

/// `path` (without its query) in RFC 3986 normal form, or why the host
/// refuses it.
pub fn normalize(path: &str) -> Result<String, PathProblem> {
    check(path)?;
    Ok(unreserved_decoded(path))
}

/// Refuses `path` if any reading of it — decoded up to [`MAX_DECODINGS`]
/// times, `%uXXXX` escapes included, `\` taken as `/`, a segment's `;`
/// parameters dropped, trailing spaces ignored — holds a segment made only
/// of dots, or it holds a backslash, a control character or bytes that are
/// not UTF-8 (overlong encodings of `.` and `/`).
fn check(path: &str) -> Result<(), PathProblem> {
    let mut layer = path.as_bytes().to_vec();
    let mut decodings = 0;
    loop {
        if let Some(why) = problem(&layer) {
            return Err(PathProblem::Holds(why));
        }
        let next = decode_once(&layer);
        if next == layer {
            return Ok(());
        }
        decodings += 1;
        if decodings > MAX_DECODINGS {
            return Err(PathProblem::TooDeep);
        }
        layer = next;
    }
}

/// What is wrong with one decoded layer of a path, if anything.
fn problem(layer: &[u8]) -> Option<&'static str> {
    if layer.contains(&b'\\') {
        return Some("holds a backslash, which some servers read as `/`");
    }
    if layer.iter().any(|b| b.is_ascii_control()) {
        return Some("holds a control character");
    }
    if std::str::from_utf8(layer).is_err() {
        return Some("decodes to bytes that are not UTF-8 (such as an overlong `.` or `/`)");
    }
    let dots = layer.split(|b| *b == b'/').any(|segment| {
        let segment = segment.split(|b| *b == b';').next().unwrap_or_default();
        let segment = segment.trim_ascii_end();
        !segment.is_empty() && segment.iter().all(|b| *b == b'.')
    });
    dots.then_some("holds a dot-segment")
}

/// `layer` with every `%XX` escape decoded, and every `%uXXXX` (a
/// non-standard form some servers decode) as the character's UTF-8.
fn decode_once(layer: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(layer.len());
    let (mut start, mut i) = (0, 0);
    while i < layer.len() {
        match (layer[i] == b'%')
            .then(|| wide_escape(&layer[i + 1..]))
            .flatten()
        {
            Some(ch) => {
                out.extend(percent_decode(&layer[start..i]));
                let mut buf = [0; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                i += 6;
                start = i;
            }
            None => i += 1,
        }
    }
    out.extend(percent_decode(&layer[start..]));
    out
}

/// The character of a `uXXXX` escape (after its `%`).
fn wide_escape(after: &[u8]) -> Option<char> {
    let (u, hex) = (after.first()?, after.get(1..5)?);
    if !u.eq_ignore_ascii_case(&b'u') || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let code = u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
    char::from_u32(code)
}

/// RFC 3986 §6.2.2.1 and §6.2.2.2: `%XX` escapes of unreserved characters
/// decoded, the others' hex digits upper-cased; anything else as is.
fn unreserved_decoded(path: &str) -> String {
    let bytes = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = bytes
            .get(i + 1..i + 3)
            .filter(|hex| bytes[i] == b'%' && hex.iter().all(u8::is_ascii_hexdigit));
        match escape.and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()) {
            Some(b) if b.is_ascii_alphanumeric() || b"-._~".contains(&b) => {
                out.push(char::from(b));
                i += 3;
            }
            Some(b) => {
                out.push_str(&format!("%{b:02X}"));
                i += 3;
            }
            None => {
                let ch = path[i..].chars().next().unwrap_or_default();
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// What a lenient server could act on: every layer decoded (`%uXXXX`
    /// too), `\` as `/`, `;` parameters dropped, trailing spaces and dots
    /// dropped as Windows does, then dot-segments removed (RFC 3986 §5.2.4).
    pub(crate) fn lenient_server(path: &str) -> String {
        let mut layer = path.as_bytes().to_vec();
        for _ in 0..8 {
            layer = decode_once(&layer);
        }
        let text = String::from_utf8_lossy(&layer).replace('\\', "/");
        let mut out: Vec<String> = Vec::new();
        for segment in text.split('/').skip(1) {
            let segment = segment.split(';').next().unwrap_or_default();
            let trimmed = segment.trim_end();
            if !trimmed.is_empty() && trimmed.chars().all(|c| c == '.') {
                if trimmed.len() >= 2 {
                    out.pop();
                }
                continue;
            }
            out.push(segment.to_string());
        }
        format!("/{}", out.join("/"))
    }

    /// Every form of a dot, then of a separator, the table is built from.
    const DOTS: &[&str] = &[
        ".",
        "%2e",
        "%2E",
        "%252e",
        "%252E",
        "%25252e",
        "%u002e",
        "%U002E",
        "%%32%65",
        "%25%32%45",
    ];
    const SEPARATORS: &[&str] = &[
        "/", "\\", "%2f", "%2F", "%5c", "%5C", "%252f", "%255c", "//", "%u002f", "%u005c",
    ];
    /// What may follow a dot-segment inside its segment.
    const TAILS: &[&str] = &["", ";", ";x=1", "%3b", " ", "%20", "%00", "%09"];

    /// Every path the table generates: `..` and `.` in every mix of forms,
    /// between every pair of separators, with every tail, in the middle of a
    /// path, at its end, and right after the prefix.
    pub(crate) fn escapes() -> Vec<String> {
        let mut pairs = Vec::new();
        for a in DOTS {
            pairs.push((*a).to_string());
            for b in DOTS {
                pairs.push(format!("{a}{b}"));
            }
        }
        let mut out = Vec::new();
        for dots in &pairs {
            for sep in SEPARATORS {
                for tail in TAILS {
                    out.push(format!("/api{sep}{dots}{tail}{sep}admin"));
                    out.push(format!(
                        "/api/x{sep}{dots}{tail}{sep}{dots}{tail}{sep}admin"
                    ));
                    out.push(format!("/api{sep}{dots}{tail}"));
                }
            }
        }
        out.push("/api/%c0%ae%c0%ae/admin".into());
        out.push("/api/%c0%af..%c0%afadmin".into());
        out.push("/api/...".into());
        out.push("/api/%2525252e%2525252e/admin".into());
        out
    }

    #[test]
    fn every_dot_segment_form_is_refused_naming_the_rule() {
        let table = escapes();
        assert!(table.len() > 10_000, "{}", table.len());
        for path in &table {
            let e = normalize(path).expect_err(path).to_string();
            assert!(e.contains("no policy key grants it"), "{path}: {e}");
        }
    }

    #[test]
    fn the_table_holds_paths_a_lenient_server_reads_outside_the_prefix() {
        // The table is not vacuous: most of its paths escape `/api` on a
        // server that decodes and resolves them, and `normalize` refuses
        // every one of those (the test above refuses them all).
        let escaping = escapes()
            .iter()
            .filter(|p| {
                let seen = lenient_server(p);
                seen != "/api" && !seen.starts_with("/api/")
            })
            .count();
        assert!(escaping > 5_000, "{escaping}");
    }

    #[test]
    fn ordinary_paths_pass_in_normal_form() {
        for (path, normal) in [
            ("/", "/"),
            ("/api", "/api"),
            ("/api/", "/api/"),
            ("/api/x.json", "/api/x.json"),
            ("/api/.well-known/x", "/api/.well-known/x"),
            ("/api/..x/x..", "/api/..x/x.."),
            ("/api//x", "/api//x"),
            ("/%61pi/%7euser", "/api/~user"),
            ("/api/a%2fb", "/api/a%2Fb"),
            ("/api/100%25", "/api/100%25"),
            ("/api/caf%C3%A9", "/api/caf%C3%A9"),
            ("/api/café", "/api/café"),
            ("/api/x;v=1", "/api/x;v=1"),
            ("/api/50%", "/api/50%"),
        ] {
            assert_eq!(normalize(path).as_deref(), Ok(normal), "{path}");
        }
    }

    #[test]
    fn every_form_the_check_knows_decodes_like_a_server_would() {
        for (form, plain) in [
            ("%2e", "."),
            ("%2E", "."),
            ("%u002e", "."),
            ("%U002E", "."),
            ("%5c", "\\"),
            ("%", "%"),
            ("%u00", "%u00"),
            ("%zz", "%zz"),
        ] {
            assert_eq!(decode_once(form.as_bytes()), plain.as_bytes(), "{form}");
        }
        assert_eq!(lenient_server("/api/%2e%2e/admin"), "/admin");
        assert_eq!(lenient_server("/api/..;x/admin"), "/admin");
        assert_eq!(lenient_server("/api\\..\\admin"), "/admin");
    }
}
