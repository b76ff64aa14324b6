//! The permissions a plugin's author requests in its OCI artifact: a layer
//! of media type [`POLICY_LAYER`] holding a YAML policy in the format of
//! microsoft/policy-mcp, as Wassette publishes its components. Read
//! (bounded, with `serde-saphyr`'s budgets), shown by `inspect` and `pull`,
//! and written out as a `[plugins.NAME]` section for the operator to review
//! ([`RequestedPolicy::section`]). Never granted: a plugin gets only what
//! the policy file says.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The media type of the policy layer.
pub const POLICY_LAYER: &str = "application/vnd.wasm.policy.v1+yaml";

/// The most bytes a policy layer may have; a larger one is not read.
pub const MAX_POLICY_LAYER: u64 = 64 * 1024;

/// What an artifact's policy layer requests.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RequestedPolicy {
    /// The format's version (`"1.0"`).
    #[serde(default)]
    pub version: Option<String>,
    /// The author's description.
    #[serde(default)]
    pub description: Option<String>,
    /// What is requested.
    #[serde(default)]
    pub permissions: Permissions,
}

/// The permissions of a [`RequestedPolicy`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Permissions {
    /// Files: `fs://` URIs and their access.
    #[serde(default)]
    pub storage: Rules<StorageRule>,
    /// Hosts, host patterns and address ranges.
    #[serde(default)]
    pub network: Rules<NetworkRule>,
    /// Environment variables.
    #[serde(default)]
    pub environment: Rules<EnvRule>,
    /// Any other section (`runtime`, `resources`, …), by name: shown as
    /// not applicable to this host.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde::de::IgnoredAny>,
}

/// A section's allow and deny lists.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub struct Rules<T> {
    /// What is asked for.
    #[serde(default = "Vec::new")]
    pub allow: Vec<T>,
    /// What the author rules out (this host denies by default anyway).
    #[serde(default = "Vec::new")]
    pub deny: Vec<T>,
}

impl<T> Default for Rules<T> {
    fn default() -> Self {
        Rules {
            allow: Vec::new(),
            deny: Vec::new(),
        }
    }
}

/// One storage rule.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct StorageRule {
    /// `fs:///abs/path`, `fs://relative/path`, maybe ending in `/**`.
    pub uri: String,
    /// `read`, `write`.
    #[serde(default)]
    pub access: Vec<String>,
}

/// One network rule: a host (or `*.` pattern), an address range, or the
/// format's list of common hosts.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct NetworkRule {
    /// `api.example.com`, `*.example.com` or `https://example.com/`.
    #[serde(default)]
    pub host: Option<String>,
    /// `10.0.0.0/8`.
    #[serde(default)]
    pub cidr: Option<String>,
    /// The format's predefined list of common hosts.
    #[serde(default)]
    pub defaults: Option<bool>,
}

/// One environment rule.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct EnvRule {
    /// The variable's name.
    pub key: String,
}

/// Why a policy layer was not read.
#[derive(Debug, thiserror::Error)]
pub enum RequestedError {
    /// Over [`MAX_POLICY_LAYER`].
    #[error("the policy layer has {0} bytes; at most {MAX_POLICY_LAYER} are read")]
    TooLarge(u64),
    /// Not UTF-8 text.
    #[error("the policy layer is not UTF-8 text")]
    NotText,
    /// Not YAML of the expected shape.
    #[error("the policy layer is not a policy of the policy-mcp format: {0}")]
    Invalid(String),
}

impl RequestedPolicy {
    /// Reads a policy layer's bytes.
    pub fn parse(bytes: &[u8]) -> Result<RequestedPolicy, RequestedError> {
        if bytes.len() as u64 > MAX_POLICY_LAYER {
            return Err(RequestedError::TooLarge(bytes.len() as u64));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| RequestedError::NotText)?;
        let mut policy: RequestedPolicy = serde_saphyr::from_str(text).map_err(|e| {
            // The first line: the rest quotes the input, which is the
            // author's and may be long.
            let e = e.to_string();
            RequestedError::Invalid(e.lines().next().unwrap_or_default().to_string())
        })?;
        policy
            .permissions
            .other
            .retain(|k, _| !["storage", "network", "environment"].contains(&k.as_str()));
        Ok(policy)
    }

    /// Whether it requests nothing.
    pub fn is_empty(&self) -> bool {
        let p = &self.permissions;
        p.storage.allow.is_empty()
            && p.network.allow.is_empty()
            && p.environment.allow.is_empty()
            && p.other.is_empty()
    }

    /// The report's lines: (what, requested), in a fixed order.
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let p = &self.permissions;
        let mut lines = Vec::new();
        if let Some(d) = &self.description {
            lines.push(("description", d.clone()));
        }
        let join = |items: Vec<String>| items.join(", ");
        if !p.network.allow.is_empty() {
            lines.push((
                "network",
                join(p.network.allow.iter().map(NetworkRule::shown).collect()),
            ));
        }
        if !p.storage.allow.is_empty() {
            lines.push((
                "storage",
                join(
                    p.storage
                        .allow
                        .iter()
                        .map(|s| format!("{} ({})", s.uri, s.access.join("+")))
                        .collect(),
                ),
            ));
        }
        if !p.environment.allow.is_empty() {
            lines.push((
                "environment",
                join(p.environment.allow.iter().map(|e| e.key.clone()).collect()),
            ));
        }
        if !p.other.is_empty() {
            lines.push((
                "other",
                format!(
                    "{} (not used by this host)",
                    join(p.other.keys().cloned().collect())
                ),
            ));
        }
        lines
    }

    /// The `[plugins.NAME]` section that would grant what is requested, as
    /// far as this host's policy can say it, for the operator to review
    /// (what it cannot say is left as comments). `reference` names the
    /// artifact in the header comment.
    pub fn section(&self, name: &str, reference: &str) -> String {
        let p = &self.permissions;
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let mut out = format!(
            "# Requested by the policy layer of {reference}.\n\
             # Nothing here is granted until it is in your policy file: review each line.\n"
        );
        if let Some(d) = &self.description {
            out.push_str(&format!("# Its description: {}\n", d.replace('\n', " ")));
        }
        out.push_str(&format!("[plugins.{name}]\n"));
        if !p.environment.allow.is_empty() {
            let keys: Vec<String> = p.environment.allow.iter().map(|e| quote(&e.key)).collect();
            out.push_str("# Passed through from the server's environment, if set there.\n");
            out.push_str(&format!("env_passthrough = [{}]\n", keys.join(", ")));
        }
        for rule in &p.storage.allow {
            let (path, note) = rule.host_path();
            let write = rule.access.iter().any(|a| a == "write");
            out.push_str(&format!(
                "\n# storage {} ({}){note}\n[[plugins.{name}.mounts]]\nhost = {}\nguest = {}\n",
                rule.uri,
                rule.access.join("+"),
                quote(&path),
                quote(&path)
            ));
            if write {
                out.push_str("write = true\n");
            }
        }
        let (origins, unsaid): (Vec<_>, Vec<_>) = p
            .network
            .allow
            .iter()
            .map(|r| (r, r.origin()))
            .partition(|(_, o)| o.is_some());
        if !origins.is_empty() {
            let allow: Vec<String> = origins
                .iter()
                .filter_map(|(_, o)| o.as_deref().map(quote))
                .collect();
            out.push_str(&format!(
                "\n# Hosts without a scheme are given https.\n[plugins.{name}.http]\nallow = [{}]\n",
                allow.join(", ")
            ));
        }
        for (rule, _) in unsaid {
            out.push_str(&format!(
                "# network {}: this host grants origins, not address ranges or lists; see `allow_addresses` in docs/policy.md\n",
                rule.shown()
            ));
        }
        for other in p.other.keys() {
            out.push_str(&format!(
                "# {other}: not used by this host (its limits are the policy's own keys)\n"
            ));
        }
        out
    }
}

impl NetworkRule {
    fn shown(&self) -> String {
        match (&self.host, &self.cidr, self.defaults) {
            (Some(h), _, _) => h.clone(),
            (None, Some(c), _) => format!("cidr {c}"),
            (None, None, Some(true)) => "the format's default hosts".into(),
            _ => "an empty rule".into(),
        }
    }

    /// The `http.allow` entry for a host rule: `https://` unless it names
    /// its scheme, without a trailing `/`.
    fn origin(&self) -> Option<String> {
        let host = self.host.as_deref()?.trim();
        if host.is_empty() {
            return None;
        }
        let with_scheme = if host.starts_with("http://") || host.starts_with("https://") {
            host.to_string()
        } else {
            format!("https://{host}")
        };
        Some(with_scheme.trim_end_matches('/').to_string())
    }
}

impl StorageRule {
    /// The host path an `fs://` URI names, and a note when the mount can
    /// only approximate it (a glob, a relative path).
    fn host_path(&self) -> (String, &'static str) {
        let rest = self.uri.strip_prefix("fs://").unwrap_or(&self.uri);
        let trimmed = rest.trim_end_matches("/**").trim_end_matches("/*");
        let note = if trimmed.len() != rest.len() {
            ": a mount grants the whole directory"
        } else if !trimmed.starts_with('/') {
            ": a relative path, resolved against the policy file's directory"
        } else {
            ""
        };
        let path = if trimmed.is_empty() { "/" } else { trimmed };
        (path.to_string(), note)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WEATHER: &str = "version: \"1.0\"\ndescription: \"Permission policy for a weather demo\"\npermissions:\n  network:\n    allow:\n      - host: \"api.openweathermap.org\"\n  environment:\n    allow:\n      - key: \"OPENWEATHER_API_KEY\"\n";

    #[test]
    fn a_wassette_policy_is_read_shown_and_written_as_a_section_to_review() {
        let p = RequestedPolicy::parse(WEATHER.as_bytes()).unwrap();
        assert_eq!(
            p.lines(),
            [
                ("description", "Permission policy for a weather demo".into()),
                ("network", "api.openweathermap.org".into()),
                ("environment", "OPENWEATHER_API_KEY".into()),
            ]
        );
        let section = p.section("weather", "oci://r/weather:v1");
        assert!(section.contains("[plugins.weather]\n"), "{section}");
        assert!(
            section.contains("env_passthrough = [\"OPENWEATHER_API_KEY\"]"),
            "{section}"
        );
        assert!(
            section
                .contains("[plugins.weather.http]\nallow = [\"https://api.openweathermap.org\"]"),
            "{section}"
        );
        // What it writes is a valid policy section.
        let parsed: toml::Table = toml::from_str(&section).unwrap();
        assert!(parsed["plugins"]["weather"]["http"]["allow"].is_array());
    }

    /// Every shape of rule the format has, and sections this host does not
    /// use: each is written as a key or as a comment, and the whole stays
    /// valid TOML whatever the strings hold.
    #[test]
    fn every_rule_shape_becomes_a_key_or_a_comment() {
        let yaml = r#"
permissions:
  storage:
    allow:
      - uri: "fs:///data/in"
        access: ["read"]
      - uri: "fs://work/out/**"
        access: ["read", "write"]
  network:
    allow:
      - host: "https://rss.example.com/"
      - host: "*.internal.example"
      - cidr: "10.0.0.0/8"
      - defaults: true
  environment:
    allow:
      - key: "A\"B"
  runtime:
    docker:
      privileged: false
"#;
        let p = RequestedPolicy::parse(yaml.as_bytes()).unwrap();
        let section = p.section("x", "oci://r/x:v1");
        let parsed: toml::Table =
            toml::from_str(&section).unwrap_or_else(|e| panic!("{e}\n{section}"));
        let x = &parsed["plugins"]["x"];
        assert_eq!(x["env_passthrough"][0].as_str(), Some("A\"B"));
        let mounts = x["mounts"].as_array().unwrap();
        assert_eq!(mounts[0]["host"].as_str(), Some("/data/in"));
        assert!(mounts[0].get("write").is_none());
        assert_eq!(mounts[1]["host"].as_str(), Some("work/out"));
        assert_eq!(mounts[1]["write"].as_bool(), Some(true));
        let allow: Vec<&str> = x["http"]["allow"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(
            allow,
            ["https://rss.example.com", "https://*.internal.example"]
        );
        for comment in [
            "cidr 10.0.0.0/8",
            "the format's default hosts",
            "# runtime: not used",
        ] {
            assert!(section.contains(comment), "{comment}: {section}");
        }
        assert_eq!(
            p.lines().last().unwrap().1,
            "runtime (not used by this host)"
        );
    }

    /// Whatever the bytes, a clear error and no panic: too large, not text,
    /// not YAML, YAML of another shape, an alias bomb.
    #[test]
    fn a_bad_policy_layer_is_refused_with_a_reason() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x]\n");
        for i in 0..12 {
            bomb.push_str(&format!(
                "b{i}: &b{i} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n",
                p = if i == 0 {
                    "a".to_string()
                } else {
                    format!("b{}", i - 1)
                }
            ));
        }
        bomb.push_str("permissions: *b11\n");
        let cases: [(&[u8], &str); 5] = [
            (&vec![b'#'; MAX_POLICY_LAYER as usize + 1], "bytes"),
            (b"\xff\xfe", "not UTF-8"),
            (b"permissions: [unclosed", "not a policy"),
            (b"permissions:\n  network:\n    allow: 7\n", "not a policy"),
            (bomb.as_bytes(), "not a policy"),
        ];
        for (bytes, expected) in cases {
            let e = RequestedPolicy::parse(bytes).unwrap_err().to_string();
            assert!(e.contains(expected), "{e}");
        }
        assert!(
            RequestedPolicy::parse(b"version: \"1.0\"\n")
                .unwrap()
                .is_empty()
        );
    }
}
