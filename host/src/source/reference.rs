//! Where a plugin comes from: `oci://REGISTRY/REPO:TAG`,
//! `oci://REGISTRY/REPO@sha256:HEX`, or an `https://` URL (whose digest the
//! policy pins).

use std::fmt;

/// A plugin's source, as written in the policy file or on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceRef {
    /// An OCI registry reference (without the `oci://` prefix).
    Oci(OciRef),
    /// A URL; `https://`, or `http://` on a loopback host.
    Https(String),
}

/// A parsed OCI reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciRef {
    /// `host` or `host:port`.
    pub registry: String,
    /// The repository path, e.g. `plugins/text`.
    pub repository: String,
    /// The tag, if the reference names one.
    pub tag: Option<String>,
    /// The manifest digest (`sha256:HEX`), if the reference pins one.
    pub digest: Option<String>,
}

/// Why a reference is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a plugin source: {problem} (expected oci://REGISTRY/REPO:TAG, oci://REGISTRY/REPO@sha256:HEX or an https:// URL)"
)]
pub struct BadReference {
    text: String,
    problem: &'static str,
}

impl SourceRef {
    /// Parses a source.
    pub fn parse(text: &str) -> Result<Self, BadReference> {
        let bad = |problem| BadReference {
            text: text.to_string(),
            problem,
        };
        if let Some(rest) = text.strip_prefix("oci://") {
            return OciRef::parse(rest).map(SourceRef::Oci).map_err(bad);
        }
        if text.starts_with("https://") || text.starts_with("http://") {
            let url = url::Url::parse(text).map_err(|_| bad("not a valid URL"))?;
            if url.scheme() == "http" && !is_loopback(url.host_str().unwrap_or_default()) {
                return Err(bad("plain http:// is allowed only on loopback hosts"));
            }
            if url.host_str().is_none_or(str::is_empty) {
                return Err(bad("the URL has no host"));
            }
            return Ok(SourceRef::Https(text.to_string()));
        }
        Err(bad("unknown scheme"))
    }

    /// Whether the reference pins its content by digest by itself.
    pub fn is_pinned(&self) -> bool {
        matches!(self, SourceRef::Oci(r) if r.digest.is_some())
    }
}

impl OciRef {
    fn parse(text: &str) -> Result<Self, &'static str> {
        let (registry, rest) = text
            .split_once('/')
            .ok_or("no repository after the registry")?;
        if registry.is_empty() || registry.contains(['@', ' ']) {
            return Err("no registry host");
        }
        let (path, digest) = match rest.split_once('@') {
            Some((path, digest)) => {
                let hex = digest
                    .strip_prefix("sha256:")
                    .ok_or("the digest must be sha256:HEX")?;
                if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                    return Err("the digest must be sha256: and 64 hexadecimal digits");
                }
                (path, Some(format!("sha256:{}", hex.to_ascii_lowercase())))
            }
            None => (rest, None),
        };
        // A tag follows the last `:` after the last `/`.
        let last = path.rfind('/').map_or(0, |i| i + 1);
        let (repository, tag) = match path[last..].rfind(':') {
            Some(i) => (&path[..last + i], Some(path[last + i + 1..].to_string())),
            None => (path, None),
        };
        if repository.is_empty()
            || !repository
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-/".contains(&b))
            || repository.starts_with('/')
            || repository.ends_with('/')
            || repository.contains("//")
        {
            return Err("the repository must be lowercase letters, digits, `.`, `_`, `-` and `/`");
        }
        if let Some(tag) = &tag
            && (tag.is_empty()
                || tag.len() > 128
                || !tag
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)))
        {
            return Err("the tag must be 1 to 128 letters, digits, `.`, `_` and `-`");
        }
        if tag.is_none() && digest.is_none() {
            return Err("name a tag (:TAG) or a digest (@sha256:HEX)");
        }
        Ok(OciRef {
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag,
            digest,
        })
    }

    /// The same repository at `digest`.
    pub fn at_digest(&self, digest: &str) -> OciRef {
        OciRef {
            tag: None,
            digest: Some(digest.to_string()),
            ..self.clone()
        }
    }

    /// The same repository at `tag`.
    pub fn at_tag(&self, tag: &str) -> OciRef {
        OciRef {
            tag: Some(tag.to_string()),
            digest: None,
            ..self.clone()
        }
    }

    /// `REGISTRY/REPO`, as cosign's payload names the image.
    pub fn repository_name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// The registry's host name, without the port.
    pub fn host(&self) -> &str {
        let r = &self.registry;
        if let Some(rest) = r.strip_prefix('[') {
            return rest.split(']').next().unwrap_or(rest);
        }
        r.rsplit_once(':').map_or(r, |(host, _)| host)
    }

    /// The reference as `oci-client` spells it.
    pub(crate) fn client_ref(&self) -> oci_client::Reference {
        match (&self.digest, &self.tag) {
            (Some(d), Some(t)) => oci_client::Reference::with_tag_and_digest(
                self.registry.clone(),
                self.repository.clone(),
                t.clone(),
                d.clone(),
            ),
            (Some(d), None) => oci_client::Reference::with_digest(
                self.registry.clone(),
                self.repository.clone(),
                d.clone(),
            ),
            (None, t) => oci_client::Reference::with_tag(
                self.registry.clone(),
                self.repository.clone(),
                t.clone().unwrap_or_else(|| "latest".into()),
            ),
        }
    }
}

/// Whether `host` is a loopback name or address.
pub fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

impl fmt::Display for OciRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "oci://{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

impl fmt::Display for SourceRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceRef::Oci(r) => r.fmt(f),
            SourceRef::Https(url) => f.write_str(url),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_and_print_back() {
        let hex = "ab".repeat(32);
        for text in [
            "oci://127.0.0.1:5000/plugins/text:v1".to_string(),
            "oci://ghcr.io/org/repo:1.2.3".to_string(),
            format!("oci://localhost:5000/echo@sha256:{hex}"),
            format!("oci://localhost:5000/echo:v1@sha256:{hex}"),
        ] {
            let parsed = SourceRef::parse(&text).unwrap();
            assert_eq!(parsed.to_string(), text);
        }
        let SourceRef::Oci(r) = SourceRef::parse("oci://127.0.0.1:5000/a/b:v1").unwrap() else {
            panic!("not oci");
        };
        assert_eq!(
            (r.registry.as_str(), r.repository.as_str(), r.tag.as_deref()),
            ("127.0.0.1:5000", "a/b", Some("v1"))
        );
        assert_eq!(r.host(), "127.0.0.1");
        assert!(SourceRef::parse("https://example.com/p.wasm").is_ok());
        assert!(SourceRef::parse("http://127.0.0.1:8080/p.wasm").is_ok());
    }

    #[test]
    fn bad_references_are_refused_with_the_reason() {
        for (text, problem) in [
            ("oci://registry", "no repository"),
            ("oci://r/Repo:v1", "lowercase"),
            ("oci://r/repo", "name a tag"),
            ("oci://r/repo@sha256:abc", "64 hexadecimal"),
            ("oci://r/repo@md5:abc", "sha256:HEX"),
            ("http://example.com/p.wasm", "loopback"),
            ("ftp://example.com/p.wasm", "unknown scheme"),
        ] {
            let e = SourceRef::parse(text).unwrap_err().to_string();
            assert!(e.contains(problem) && e.contains(text), "{text}: {e}");
        }
    }
}
