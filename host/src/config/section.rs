//! One policy section, `[defaults]` or `[plugins.NAME]`, as written: its
//! limit keys, its source keys, and each capability's keys (read by the
//! capability, through the runtime's registry); checked, and applied to a
//! plugin's limits.

use std::collections::BTreeMap;
use std::sync::LazyLock;
use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;
use serde::de::{self, MapAccess};

use super::oauth::check_scope;
use crate::runtime::capabilities::{self, GrantSpecs, KnownKey};
use crate::runtime::units::count;
use crate::runtime::{
    Limits, MAX_INSTANCES, MAX_MEMORIES, MAX_READY_INSTANCES, MAX_REUSE_INSTANCES,
    MAX_TABLE_ELEMENTS, MAX_TABLES, Sha256Digest,
};
use crate::source::SourceRef;

/// `reuse_instances` as written: a number of calls per instance, or
/// `"session"` (an instance per client session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ReuseSpec {
    Calls(u32),
    Session,
}

impl<'de> Deserialize<'de> for ReuseSpec {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl de::Visitor<'_> for Visitor {
            type Value = ReuseSpec;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a number of calls per instance (0: a fresh instance per call) or \"session\" (one instance per client session)",
                )
            }
            fn visit_i64<E: de::Error>(self, n: i64) -> Result<ReuseSpec, E> {
                u32::try_from(n)
                    .map(ReuseSpec::Calls)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(n), &self))
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<ReuseSpec, E> {
                u32::try_from(n)
                    .map(ReuseSpec::Calls)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(n), &self))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<ReuseSpec, E> {
                match s {
                    "session" => Ok(ReuseSpec::Session),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// Declares [`SectionSpec`] with one optional field per limit key, and
/// reads those keys.
macro_rules! section_spec {
    ($($key:ident: $ty:ty),* $(,)?) => {
        /// One section (`[defaults]` or `[plugins.NAME]`) as written: its
        /// limits, its pinned digest, and its capability keys.
        #[derive(Debug, Default, Clone)]
        pub(super) struct SectionSpec {
            $(pub(super) $key: Option<$ty>,)*
            pub(super) sha256: Option<String>,
            pub(super) source: Option<String>,
            pub(super) signature_keys: Option<Vec<String>>,
            pub(super) max_plugin_size: Option<ByteSize>,
            pub(super) grants: GrantSpecs,
        }

        /// The limit keys.
        const LIMIT_KEYS: &[&str] = &[$(stringify!($key)),*];

        impl SectionSpec {
            /// Reads the value of `key` into its field; `false` if `key` is
            /// none of the limit keys and not `sha256`.
            fn accept<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                match key {
                    $(stringify!($key) => self.$key = Some(map.next_value()?),)*
                    "sha256" => self.sha256 = Some(map.next_value()?),
                    "source" => self.source = Some(map.next_value()?),
                    "signature_keys" => self.signature_keys = Some(map.next_value()?),
                    "max_plugin_size" => self.max_plugin_size = Some(map.next_value()?),
                    _ => return Ok(false),
                }
                Ok(true)
            }
        }
    };
}

section_spec! {
    fuel: u64,
    memory: ByteSize,
    table_elements: u64,
    instances: u32,
    tables: u32,
    memories: u32,
    timeout: humantime_serde::Serde<Duration>,
    task_timeout: humantime_serde::Serde<Duration>,
    max_concurrent_calls: u32,
    max_argument_size: ByteSize,
    max_result_size: ByteSize,
    rate_limit: u32,
    client_rate_limit: u32,
    audit_arguments: bool,
    receipts: bool,
    log_lines: u64,
    log_bytes: ByteSize,
    host_resources: u32,
    max_tools: u32,
    max_schema_size: ByteSize,
    max_tool_list_size: ByteSize,
    reuse_instances: ReuseSpec,
    ready_instances: u32,
    scopes: Vec<String>,
    tool_scopes: BTreeMap<String, Vec<String>>,
}

/// Every key a section may hold: the limits, `sha256`, and the
/// capabilities' keys.
fn section_keys() -> &'static [&'static str] {
    static ALL: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut all = LIMIT_KEYS.to_vec();
        all.extend(["sha256", "source", "signature_keys", "max_plugin_size"]);
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
    if s.fuel == Some(0) {
        return err("fuel", "must be at least 1".into());
    }
    if let Some(m) = s.memory
        && (m.as_u64() < 64 * 1024 || m.as_u64() > max_memory)
    {
        return err(
            "memory",
            format!(
                "{m} is outside 64 KiB ..= {} (the engine's per-instance ceiling)",
                ByteSize(max_memory)
            ),
        );
    }
    if s.timeout.is_some_and(|t| t.is_zero()) {
        return err("timeout", "must be longer than zero".into());
    }
    if s.task_timeout.is_some_and(|t| t.is_zero()) {
        return err("task_timeout", "must be longer than zero".into());
    }
    if s.max_concurrent_calls == Some(0) {
        return err("max_concurrent_calls", "must be at least 1".into());
    }
    if s.max_tools == Some(0) {
        return err("max_tools", "must be at least 1".into());
    }
    for (key, size) in [
        ("max_schema_size", s.max_schema_size),
        ("max_tool_list_size", s.max_tool_list_size),
    ] {
        if size.is_some_and(|b| b.as_u64() == 0) {
            return err(key, "must be at least 1 byte".into());
        }
    }
    if let Some(ReuseSpec::Calls(n)) = s.reuse_instances
        && n > MAX_REUSE_INSTANCES
    {
        return err(
            "reuse_instances",
            format!(
                "must be at most {} (0: a fresh instance per call), or \"session\"",
                count(MAX_REUSE_INSTANCES.into())
            ),
        );
    }
    // What the engine's pool holds for one component: a larger value could
    // not take effect, so it is refused rather than silently capped.
    for (key, value, max) in [
        (
            "instances",
            s.instances.map(u64::from),
            u64::from(MAX_INSTANCES),
        ),
        ("tables", s.tables.map(u64::from), u64::from(MAX_TABLES)),
        (
            "memories",
            s.memories.map(u64::from),
            u64::from(MAX_MEMORIES),
        ),
        ("table_elements", s.table_elements, MAX_TABLE_ELEMENTS),
    ] {
        if value.is_some_and(|n| n > max) {
            return err(
                key,
                format!(
                    "must be at most {}: the engine's pool holds no more for one component",
                    count(max)
                ),
            );
        }
    }
    if s.ready_instances.is_some_and(|n| n > MAX_READY_INSTANCES) {
        return err(
            "ready_instances",
            format!(
                "must be at most {MAX_READY_INSTANCES} (0: no instance is made ahead of a call)"
            ),
        );
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
    let set = |target: &mut u64, v: Option<u64>| {
        if let Some(v) = v {
            *target = v;
        }
    };
    set(&mut limits.fuel, s.fuel);
    set(&mut limits.memory_bytes, s.memory.map(|b| b.as_u64()));
    set(&mut limits.table_elements, s.table_elements);
    set(
        &mut limits.max_argument_bytes,
        s.max_argument_size.map(|b| b.as_u64()),
    );
    set(
        &mut limits.max_result_bytes,
        s.max_result_size.map(|b| b.as_u64()),
    );
    set(&mut limits.log_lines, s.log_lines);
    set(&mut limits.log_bytes, s.log_bytes.map(|b| b.as_u64()));
    limits.host_resources = s.host_resources.unwrap_or(limits.host_resources);
    limits.instances = s.instances.unwrap_or(limits.instances);
    limits.tables = s.tables.unwrap_or(limits.tables);
    limits.memories = s.memories.unwrap_or(limits.memories);
    limits.timeout = s.timeout.map_or(limits.timeout, |t| *t);
    limits.task_timeout = s.task_timeout.map_or(limits.task_timeout, |t| *t);
    limits.max_concurrent_calls = s
        .max_concurrent_calls
        .unwrap_or(limits.max_concurrent_calls);
    limits.rate_limit_per_minute = s.rate_limit.unwrap_or(limits.rate_limit_per_minute);
    limits.client_rate_limit_per_minute = s
        .client_rate_limit
        .unwrap_or(limits.client_rate_limit_per_minute);
    limits.audit_arguments = s.audit_arguments.unwrap_or(limits.audit_arguments);
    limits.receipts = s.receipts.unwrap_or(limits.receipts);
    limits.max_tools = s.max_tools.unwrap_or(limits.max_tools);
    match s.reuse_instances {
        Some(ReuseSpec::Calls(n)) => {
            limits.reuse_instances = n;
            limits.reuse_per_session = false;
        }
        Some(ReuseSpec::Session) => {
            limits.reuse_instances = MAX_REUSE_INSTANCES;
            limits.reuse_per_session = true;
        }
        None => {}
    }
    limits.ready_instances = s.ready_instances.unwrap_or(limits.ready_instances);
    set(
        &mut limits.max_schema_bytes,
        s.max_schema_size.map(|b| b.as_u64()),
    );
    set(
        &mut limits.max_tool_list_bytes,
        s.max_tool_list_size.map(|b| b.as_u64()),
    );
}
