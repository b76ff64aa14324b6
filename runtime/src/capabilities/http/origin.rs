//! The origins an HTTP allow-list names: `scheme://host[:port][/path-prefix]`,
//! where host may be `*.example.com` (any subdomain of example.com, not
//! example.com itself), and how a request's URL is matched against them:
//! on its path in normal form (see [`super::path`]), a path holding a
//! dot-segment in any encoding being refused before any entry judges it.

use std::fmt;
use std::net::IpAddr;

use super::path;

/// `http` or `https`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS.
    Https,
}

impl Scheme {
    fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "http" => Some(Scheme::Http),
            "https" => Some(Scheme::Https),
            _ => None,
        }
    }

    /// The port used when a URL names none.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }

    /// `http` or `https`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }
}

/// The host part of an allow-list entry.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HostPattern {
    /// Exactly this name (lowercase, no trailing dot).
    Name(String),
    /// Any name ending in `.` followed by this suffix.
    Subdomains(String),
    /// Exactly this address.
    Ip(IpAddr),
}

/// One allow-list entry: scheme, host pattern, port and path prefix.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OriginPattern {
    /// The scheme; it must match exactly.
    pub scheme: Scheme,
    /// The host or hosts.
    pub host: HostPattern,
    /// The port; the scheme's default when the entry names none.
    pub port: u16,
    /// The path the request's path must start with, at a segment boundary
    /// (`/wiki` allows `/wiki` and `/wiki/X`, not `/wikis`); `/` for all.
    /// In RFC 3986 normal form, as the request's path is compared.
    pub path: String,
}

/// One request's target, as the host sees it before sending it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestTarget {
    /// The scheme.
    pub scheme: Scheme,
    /// The host name (lowercase, no trailing dot) or address literal.
    pub host: String,
    /// The host as an address, when it is an address literal.
    pub ip: Option<IpAddr>,
    /// The port (the scheme's default when the URL names none).
    pub port: u16,
    /// The path, without the query, in RFC 3986 normal form: what the host
    /// judges and sends.
    pub path: String,
    /// The query, with its `?`, as the guest wrote it (empty when none).
    pub query: String,
}

impl RequestTarget {
    /// `scheme://host[:port]`, with the port only when it is not the
    /// scheme's default; what audit records and messages show.
    pub fn origin(&self) -> String {
        origin_text(self.scheme, &self.host, self.ip, self.port)
    }

    /// The request line's target: the normal path and the query.
    pub fn path_and_query(&self) -> String {
        format!("{}{}", self.path, self.query)
    }
}

fn origin_text(scheme: Scheme, host: &str, ip: Option<IpAddr>, port: u16) -> String {
    let host = match ip {
        Some(IpAddr::V6(v6)) => format!("[{v6}]"),
        _ => host.to_string(),
    };
    if port == scheme.default_port() {
        format!("{}://{host}", scheme.as_str())
    } else {
        format!("{}://{host}:{port}", scheme.as_str())
    }
}

/// Splits `host[:port]` (with `[v6]` brackets) into host and port text.
fn split_authority(authority: &str) -> Option<(&str, Option<&str>)> {
    if let Some(rest) = authority.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return match after {
            "" => Some((host, None)),
            _ => Some((host, Some(after.strip_prefix(':')?))),
        };
    }
    match authority.rsplit_once(':') {
        Some((host, port)) => Some((host, Some(port))),
        None => Some((authority, None)),
    }
}

/// `host` as a lowercase DNS name without a trailing dot, if it is one.
pub(crate) fn normal_name(host: &str) -> Option<String> {
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    let valid = !host.is_empty()
        && host.len() <= 253
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    valid.then_some(host)
}

/// Text that is not a port number (the text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a port (1 to 65535)")]
pub struct NotAPort(pub String);

fn parse_port(text: Option<&str>, scheme: Scheme) -> Result<u16, NotAPort> {
    match text {
        None => Ok(scheme.default_port()),
        Some(p) => p
            .parse::<u16>()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| NotAPort(p.to_string())),
    }
}

/// Why an allow-list entry is not an origin pattern; each names the entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    /// No `scheme://`.
    #[error("{0:?} needs a scheme: write \"https://{0}\"")]
    NoScheme(String),
    /// A scheme other than http or https.
    #[error("{0:?}: the scheme must be http or https")]
    Scheme(String),
    /// A query, fragment or user name.
    #[error("{0:?}: an origin has no query, fragment or user name")]
    NotAnOrigin(String),
    /// A host that is neither an address nor a DNS name.
    #[error("{0:?}: malformed host")]
    Host(String),
    /// A port that is not one.
    #[error("{entry:?}: {port}")]
    Port {
        /// The entry.
        entry: String,
        /// The port.
        port: NotAPort,
    },
    /// A `*` anywhere but as the whole first label.
    #[error("{0:?}: a wildcard may only be the first label (`*.example.com`)")]
    Wildcard(String),
    /// A path prefix the host refuses to judge by.
    #[error(
        "{entry:?}: a path prefix cannot be judged if {}",
        .problem.to_string().replacen("its path ", "it ", 1)
    )]
    Path {
        /// The entry.
        entry: String,
        /// Why.
        problem: path::PathProblem,
    },
}

/// Why a request has no target the allow-list can judge.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// A scheme other than http or https.
    #[error("unsupported scheme {0:?}")]
    Scheme(String),
    /// An authority or host that cannot be read.
    #[error("malformed host {0:?}")]
    Host(String),
    /// A port that is not one.
    #[error(transparent)]
    Port(#[from] NotAPort),
    /// A path the host refuses (see [`path`]).
    #[error(transparent)]
    Path(#[from] path::PathProblem),
}

impl OriginPattern {
    /// Parses an allow-list entry, or says what is wrong with it.
    pub fn parse(entry: &str) -> Result<Self, OriginError> {
        let (scheme, rest) = entry
            .split_once("://")
            .ok_or_else(|| OriginError::NoScheme(entry.to_string()))?;
        let scheme = Scheme::parse(scheme).ok_or_else(|| OriginError::Scheme(entry.to_string()))?;
        if rest.contains(['?', '#', '@']) {
            return Err(OriginError::NotAnOrigin(entry.to_string()));
        }
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let malformed = || OriginError::Host(entry.to_string());
        let (host, port) = split_authority(authority).ok_or_else(malformed)?;
        let port = parse_port(port, scheme).map_err(|port| OriginError::Port {
            entry: entry.to_string(),
            port,
        })?;
        let host = if let Ok(ip) = host.parse::<IpAddr>() {
            HostPattern::Ip(ip)
        } else if let Some(suffix) = host.strip_prefix("*.") {
            HostPattern::Subdomains(normal_name(suffix).ok_or_else(malformed)?)
        } else {
            if host.contains('*') {
                return Err(OriginError::Wildcard(entry.to_string()));
            }
            HostPattern::Name(normal_name(host).ok_or_else(malformed)?)
        };
        let path = match path.trim_end_matches('/') {
            "" => "/".to_string(),
            p => path::normalize(p).map_err(|problem| OriginError::Path {
                entry: entry.to_string(),
                problem,
            })?,
        };
        Ok(OriginPattern {
            scheme,
            host,
            port,
            path,
        })
    }

    /// Whether `target` is inside this entry.
    pub fn matches(&self, target: &RequestTarget) -> bool {
        let host = match (&self.host, target.ip) {
            (HostPattern::Ip(ip), Some(t)) => *ip == t,
            (HostPattern::Ip(_), None) | (_, Some(_)) => false,
            (HostPattern::Name(n), None) => *n == target.host,
            (HostPattern::Subdomains(s), None) => target
                .host
                .strip_suffix(s.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.')),
        };
        host && self.scheme == target.scheme
            && self.port == target.port
            && (self.path == "/"
                || target
                    .path
                    .strip_prefix(self.path.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
    }

    /// Whether this entry's origin (ignoring its path) is `target`'s.
    pub fn same_origin(&self, target: &RequestTarget) -> bool {
        OriginPattern {
            path: "/".into(),
            ..self.clone()
        }
        .matches(target)
    }
}

impl fmt::Display for OriginPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (host, ip) = match &self.host {
            HostPattern::Name(n) => (n.clone(), None),
            HostPattern::Subdomains(s) => (format!("*.{s}"), None),
            HostPattern::Ip(ip) => (ip.to_string(), Some(*ip)),
        };
        f.write_str(&origin_text(self.scheme, &host, ip, self.port))?;
        if self.path != "/" {
            f.write_str(&self.path)?;
        }
        Ok(())
    }
}

/// The target of a request with this scheme, authority and path-and-query,
/// or why it has none.
pub fn target(
    scheme: &str,
    authority: &str,
    path_and_query: &str,
) -> Result<RequestTarget, TargetError> {
    let scheme = Scheme::parse(scheme).ok_or_else(|| TargetError::Scheme(scheme.to_string()))?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let (host, port) =
        split_authority(authority).ok_or_else(|| TargetError::Host(authority.to_string()))?;
    let port = parse_port(port, scheme)?;
    let ip = host.parse::<IpAddr>().ok();
    let host = match ip {
        Some(ip) => ip.to_string(),
        None => normal_name(host).ok_or_else(|| TargetError::Host(host.to_string()))?,
    };
    let without_fragment = path_and_query.split('#').next().unwrap_or_default();
    let (path, query) = match without_fragment.find('?') {
        Some(at) => without_fragment.split_at(at),
        None => (without_fragment, ""),
    };
    let path = path::normalize(if path.is_empty() { "/" } else { path })?;
    Ok(RequestTarget {
        scheme,
        host,
        ip,
        port,
        path,
        query: query.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(url: &str) -> RequestTarget {
        let (scheme, rest) = url.split_once("://").unwrap();
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        target(scheme, authority, path).unwrap()
    }

    fn allows(entry: &str, url: &str) -> bool {
        OriginPattern::parse(entry).unwrap().matches(&t(url))
    }

    #[test]
    fn exact_origins_match_scheme_host_and_port() {
        assert!(allows("https://example.com", "https://example.com/a?b=c"));
        assert!(allows("https://example.com", "https://EXAMPLE.com./"));
        assert!(allows("https://example.com", "https://example.com:443/x"));
        assert!(!allows("https://example.com", "http://example.com/"));
        assert!(!allows("https://example.com", "https://example.com:8443/"));
        assert!(!allows(
            "https://example.com",
            "https://example.com.evil.net/"
        ));
        assert!(!allows("https://example.com", "https://www.example.com/"));
        assert!(allows("http://127.0.0.1:8080", "http://127.0.0.1:8080/x"));
        assert!(!allows("http://127.0.0.1:8080", "http://localhost:8080/x"));
        assert!(allows("http://[::1]:81", "http://[::1]:81/"));
        assert!(!allows("https://example.com", "https://user@evil.net/"));
    }

    #[test]
    fn wildcards_match_subdomains_only() {
        let entry = "https://*.example.com";
        assert!(allows(entry, "https://a.example.com/"));
        assert!(allows(entry, "https://a.b.example.com/"));
        assert!(!allows(entry, "https://example.com/"));
        assert!(!allows(entry, "https://aexample.com/"));
        assert!(!allows(entry, "https://a.example.com.evil.net/"));
    }

    #[test]
    fn path_prefixes_stop_at_segment_boundaries() {
        let entry = "https://en.wikipedia.org/wiki/";
        assert!(allows(entry, "https://en.wikipedia.org/wiki"));
        assert!(allows(entry, "https://en.wikipedia.org/wiki/Rust?x=1"));
        assert!(!allows(entry, "https://en.wikipedia.org/wikis"));
        assert!(!allows(entry, "https://en.wikipedia.org/w/index.php"));
    }

    #[test]
    fn no_encoding_or_separator_climbs_out_of_a_path_prefix() {
        let entry = OriginPattern::parse("http://127.0.0.1:8080/api").unwrap();
        for path in path::tests::escapes() {
            let e = target("http", "127.0.0.1:8080", &path)
                .expect_err(&path)
                .to_string();
            assert!(e.contains("dot-segment"), "{path}: {e}");
        }
        // Refused before any entry judges it, whatever follows the path.
        assert!(target("http", "127.0.0.1:8080", "/api/../admin?x=1").is_err());
        for (path, allowed, sent) in [
            ("/api", true, "/api"),
            ("/api/", true, "/api/"),
            (
                "/api/v1/items?q=../../admin",
                true,
                "/api/v1/items?q=../../admin",
            ),
            ("/api/x#/../../admin", true, "/api/x"),
            ("/%61pi/x", true, "/api/x"),
            ("/api/%7Euser", true, "/api/~user"),
            ("/api//x", true, "/api//x"),
            ("/api/..x", true, "/api/..x"),
            ("/apix", false, "/apix"),
            ("/api.x", false, "/api.x"),
            ("/api;x", false, "/api;x"),
            ("/api%2fx", false, "/api%2Fx"),
            ("/API/x", false, "/API/x"),
            ("//api/x", false, "//api/x"),
            ("/", false, "/"),
            ("/admin", false, "/admin"),
        ] {
            let t = target("http", "127.0.0.1:8080", path).unwrap();
            assert_eq!(entry.matches(&t), allowed, "{path}");
            assert_eq!(t.path_and_query(), sent, "{path}");
        }
    }

    #[test]
    fn an_entry_prefix_is_in_normal_form_and_holds_no_dot_segment() {
        assert_eq!(
            OriginPattern::parse("https://example.com/%61pi/")
                .unwrap()
                .path,
            "/api"
        );
        for entry in [
            "https://example.com/api/..",
            "https://example.com/api/%2e%2e/x",
            "https://example.com/a\\b",
        ] {
            let e = OriginPattern::parse(entry).unwrap_err().to_string();
            assert!(e.contains("a path prefix cannot be judged"), "{entry}: {e}");
        }
    }

    #[test]
    fn bad_entries_say_what_is_wrong() {
        for (entry, says) in [
            ("example.com", "needs a scheme"),
            ("ftp://example.com", "http or https"),
            ("https://example.com:0", "not a port"),
            ("https://example.com:99999", "not a port"),
            ("https://ex*ample.com", "first label"),
            ("https://example.com/?q=1", "no query"),
            ("https://", "malformed host"),
        ] {
            let e = OriginPattern::parse(entry).unwrap_err().to_string();
            assert!(e.contains(says), "{entry}: {e}");
        }
    }

    #[test]
    fn origins_print_as_written() {
        for entry in [
            "https://example.com",
            "http://127.0.0.1:8080",
            "https://*.example.com/api",
            "http://[::1]:81",
        ] {
            assert_eq!(OriginPattern::parse(entry).unwrap().to_string(), entry);
        }
        assert_eq!(
            t("https://Example.com:443/x?y").origin(),
            "https://example.com"
        );
    }
}
