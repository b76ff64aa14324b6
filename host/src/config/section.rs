//! One policy section, `[defaults]` or `[plugins.NAME]`, as written: its
//! limit keys (read, checked and applied by the runtime's `LimitSpecs`,
//! beside `Limits`), its scopes and source keys, and each capability's keys
//! (read by the capability, through the runtime's registry).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use bytesize::ByteSize;
use serde::Deserialize;
use serde::de::{self, MapAccess};

use super::oauth::check_scope;
use crate::runtime::capabilities::{self, GrantSpecs, KnownKey};
use crate::runtime::limits::{LIMIT_KEYS, LimitProblem, LimitSpecs};
use crate::runtime::{Limits, Sha256Digest};
use crate::source::SourceRef;

/// One section (`[defaults]` or `[plugins.NAME]`) as written: its limits
/// (read by the runtime's [`LimitSpecs`]), who may call it, its pinned
/// digest and source, and its capability keys.
#[derive(Debug, Default, Clone)]
pub(super) struct SectionSpec {
    pub(super) limits: LimitSpecs,
    pub(super) scopes: Option<Vec<String>>,
    pub(super) tool_scopes: Option<BTreeMap<String, Vec<String>>>,
    pub(super) sha256: Option<String>,
    pub(super) source: Option<String>,
    pub(super) signature_keys: Option<Vec<String>>,
    pub(super) max_plugin_size: Option<ByteSize>,
    pub(super) grants: GrantSpecs,
}

/// The section's own keys, beside the limits and the capabilities'.
const SECTION_KEYS: &[&str] = &[
    "scopes",
    "tool_scopes",
    "sha256",
    "source",
    "signature_keys",
    "max_plugin_size",
];

impl SectionSpec {
    /// Reads the value of `key` into its field; `false` if `key` is no
    /// limit key and none of the section's own.
    fn accept<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<bool, A::Error> {
        if self.limits.accept(key, map)? {
            return Ok(true);
        }
        match key {
            "scopes" => self.scopes = Some(map.next_value()?),
            "tool_scopes" => self.tool_scopes = Some(map.next_value()?),
            "sha256" => self.sha256 = Some(map.next_value()?),
            "source" => self.source = Some(map.next_value()?),
            "signature_keys" => self.signature_keys = Some(map.next_value()?),
            "max_plugin_size" => self.max_plugin_size = Some(map.next_value()?),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Every key a section may hold: the limits, `sha256`, and the
/// capabilities' keys.
fn section_keys() -> &'static [&'static str] {
    static ALL: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut all = LIMIT_KEYS.to_vec();
        all.extend(SECTION_KEYS);
        all.extend(capabilities::keys());
        all
    });
    &ALL
}

/// Read by hand: serde's `flatten` (to let the capabilities read their own
/// keys) cannot refuse unknown keys and loses the parser's line numbers.
impl<'de> Deserialize<'de> for SectionSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> de::Visitor<'de> for Visitor {
            type Value = SectionSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a policy section")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SectionSpec, A::Error> {
                let mut section = SectionSpec::default();
                while let Some(key) = map.next_key_seed(KnownKey(section_keys()))? {
                    if !section.accept(&key, &mut map)? && !section.grants.accept(&key, &mut map)? {
                        // Unreachable: `KnownKey` let only listed keys through.
                        return Err(de::Error::unknown_field(&key, section_keys()));
                    }
                }
                Ok(section)
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

pub(super) fn check_section(
    prefix: &str,
    s: &SectionSpec,
    max_memory: u64,
) -> Result<(), (String, String)> {
    let err = |key: &str, problem: String| Err((format!("{prefix}.{key}"), problem));
    for scope in s.scopes.iter().flatten() {
        if let Err(problem) = check_scope(scope) {
            return err("scopes", problem);
        }
    }
    for (tool, scopes) in s.tool_scopes.iter().flatten() {
        for scope in scopes {
            if let Err(problem) = check_scope(scope) {
                return err(&format!("tool_scopes.{tool}"), problem);
            }
        }
    }
    if let Err(LimitProblem { key, problem }) = s.limits.check(max_memory) {
        return err(key, problem);
    }
    if let Some(Err(problem)) = s.sha256.as_deref().map(Sha256Digest::from_hex) {
        return err("sha256", problem.to_string());
    }
    if let Some(Err(problem)) = s.source.as_deref().map(SourceRef::parse) {
        return err("source", problem.to_string());
    }
    if let Some(SourceRef::Https(_)) = s.source.as_deref().and_then(|t| SourceRef::parse(t).ok())
        && s.sha256.is_none()
    {
        return err(
            "source",
            "an https:// source needs the file's digest: set `sha256` in the same section".into(),
        );
    }
    if s.signature_keys
        .as_ref()
        .is_some_and(|k| k.iter().any(String::is_empty))
    {
        return err("signature_keys", "a key path is empty".into());
    }
    if s.max_plugin_size.is_some_and(|b| b.as_u64() == 0) {
        return err("max_plugin_size", "must be at least 1 byte".into());
    }
    Ok(())
}

pub(super) fn apply(limits: &mut Limits, s: &SectionSpec) {
    s.limits.apply(limits);
}
