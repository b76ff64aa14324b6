//! A policy section's limit keys as written (`fuel = 1000000`, `memory =
//! "64 MiB"`, ...): their names as constants ([`key`]), read, checked
//! against the bounds above, and applied to [`Limits`], beside which they
//! live. The host's config reads a section's other keys (its source, digest
//! and scopes) and hands these keys to [`LimitSpecs::accept`], as it hands
//! the capabilities theirs.

use std::time::Duration;

use bytesize::ByteSize;
use serde::Deserialize;
use serde::de::{self, MapAccess};

use super::{
    Limits, MAX_INSTANCES, MAX_MEMORIES, MAX_READY_INSTANCES, MAX_REUSE_INSTANCES,
    MAX_TABLE_ELEMENTS, MAX_TABLES,
};
use crate::units::count;

/// `reuse_instances` as written: a number of calls per instance, or
/// `"session"` (an instance per client session).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReuseSpec {
    /// At most this many calls per instance.
    Calls(u32),
    /// An instance per client session.
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

/// A limit key whose value is out of its range, or not allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {problem}")]
pub struct LimitProblem {
    /// The key, relative to its section (`timeout`).
    pub key: &'static str,
    /// What is wrong with its value.
    pub problem: String,
}

/// Declares the limit keys: one constant each in [`key`], one optional
/// field each in [`LimitSpecs`], and [`LIMIT_KEYS`].
macro_rules! limit_specs {
    ($($field:ident: $ty:ty => $name:ident),* $(,)?) => {
        /// The name of every limit key, as written in a policy section.
        pub mod key {
            $(
                #[doc = concat!("`", stringify!($field), "`")]
                pub const $name: &str = stringify!($field);
            )*
        }

        /// Every limit key, in the order docs/policy.md lists them.
        pub const LIMIT_KEYS: &[&str] = &[$(key::$name),*];

        /// One section's limit keys as written: `None` where it does not
        /// set one.
        #[derive(Debug, Default, Clone)]
        pub struct LimitSpecs {
            $(
                #[doc = concat!("`", stringify!($field), "`")]
                pub $field: Option<$ty>,
            )*
        }

        impl LimitSpecs {
            /// Reads the value of `key` into its field; `false` if `key` is
            /// no limit key (and nothing was read).
            pub fn accept<'de, A: MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                match key {
                    $(key::$name => self.$field = Some(map.next_value()?),)*
                    _ => return Ok(false),
                }
                Ok(true)
            }
        }
    };
}

limit_specs! {
    fuel: u64 => FUEL,
    memory: ByteSize => MEMORY,
    table_elements: u64 => TABLE_ELEMENTS,
    instances: u32 => INSTANCES,
    tables: u32 => TABLES,
    memories: u32 => MEMORIES,
    timeout: humantime_serde::Serde<Duration> => TIMEOUT,
    task_timeout: humantime_serde::Serde<Duration> => TASK_TIMEOUT,
    max_concurrent_calls: u32 => MAX_CONCURRENT_CALLS,
    max_argument_size: ByteSize => MAX_ARGUMENT_SIZE,
    max_result_size: ByteSize => MAX_RESULT_SIZE,
    rate_limit: u32 => RATE_LIMIT,
    client_rate_limit: u32 => CLIENT_RATE_LIMIT,
    audit_arguments: bool => AUDIT_ARGUMENTS,
    receipts: bool => RECEIPTS,
    log_lines: u64 => LOG_LINES,
    log_bytes: ByteSize => LOG_BYTES,
    host_resources: u32 => HOST_RESOURCES,
    max_tools: u32 => MAX_TOOLS,
    max_schema_size: ByteSize => MAX_SCHEMA_SIZE,
    max_tool_list_size: ByteSize => MAX_TOOL_LIST_SIZE,
    reuse_instances: ReuseSpec => REUSE_INSTANCES,
    ready_instances: u32 => READY_INSTANCES,
}

impl LimitSpecs {
    /// Checks every value set against its range; `max_memory` is the
    /// engine's per-instance ceiling. The first problem names its key.
    pub fn check(&self, max_memory: u64) -> Result<(), LimitProblem> {
        let err = |key: &'static str, problem: String| Err(LimitProblem { key, problem });
        if self.fuel == Some(0) {
            return err(key::FUEL, "must be at least 1".into());
        }
        if let Some(m) = self.memory
            && (m.as_u64() < 64 * 1024 || m.as_u64() > max_memory)
        {
            return err(
                key::MEMORY,
                format!(
                    "{m} is outside 64 KiB ..= {} (the engine's per-instance ceiling)",
                    ByteSize(max_memory)
                ),
            );
        }
        if self.timeout.is_some_and(|t| t.is_zero()) {
            return err(key::TIMEOUT, "must be longer than zero".into());
        }
        if self.task_timeout.is_some_and(|t| t.is_zero()) {
            return err(key::TASK_TIMEOUT, "must be longer than zero".into());
        }
        if self.max_concurrent_calls == Some(0) {
            return err(key::MAX_CONCURRENT_CALLS, "must be at least 1".into());
        }
        if self.max_tools == Some(0) {
            return err(key::MAX_TOOLS, "must be at least 1".into());
        }
        for (key, size) in [
            (key::MAX_SCHEMA_SIZE, self.max_schema_size),
            (key::MAX_TOOL_LIST_SIZE, self.max_tool_list_size),
        ] {
            if size.is_some_and(|b| b.as_u64() == 0) {
                return err(key, "must be at least 1 byte".into());
            }
        }
        if let Some(ReuseSpec::Calls(n)) = self.reuse_instances
            && n > MAX_REUSE_INSTANCES
        {
            return err(
                key::REUSE_INSTANCES,
                format!(
                    "must be at most {} (0: a fresh instance per call), or \"session\"",
                    count(MAX_REUSE_INSTANCES.into())
                ),
            );
        }
        // What the engine's pool holds for one component: a larger value
        // could not take effect, so it is refused rather than silently
        // capped.
        for (key, value, max) in [
            (
                key::INSTANCES,
                self.instances.map(u64::from),
                u64::from(MAX_INSTANCES),
            ),
            (
                key::TABLES,
                self.tables.map(u64::from),
                u64::from(MAX_TABLES),
            ),
            (
                key::MEMORIES,
                self.memories.map(u64::from),
                u64::from(MAX_MEMORIES),
            ),
            (key::TABLE_ELEMENTS, self.table_elements, MAX_TABLE_ELEMENTS),
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
        if self
            .ready_instances
            .is_some_and(|n| n > MAX_READY_INSTANCES)
        {
            return err(
                key::READY_INSTANCES,
                format!(
                    "must be at most {MAX_READY_INSTANCES} (0: no instance is made ahead of a call)"
                ),
            );
        }
        Ok(())
    }

    /// Sets in `limits` every value this section sets.
    pub fn apply(&self, limits: &mut Limits) {
        // Every field, so that a new key cannot be left unapplied.
        let LimitSpecs {
            fuel,
            memory,
            table_elements,
            instances,
            tables,
            memories,
            timeout,
            task_timeout,
            max_concurrent_calls,
            max_argument_size,
            max_result_size,
            rate_limit,
            client_rate_limit,
            audit_arguments,
            receipts,
            log_lines,
            log_bytes,
            host_resources,
            max_tools,
            max_schema_size,
            max_tool_list_size,
            reuse_instances,
            ready_instances,
        } = self;
        fn set<T: Copy>(target: &mut T, value: Option<T>) {
            if let Some(value) = value {
                *target = value;
            }
        }
        let bytes = |b: &Option<ByteSize>| b.map(|b| b.as_u64());
        set(&mut limits.fuel, *fuel);
        set(&mut limits.memory_bytes, bytes(memory));
        set(&mut limits.table_elements, *table_elements);
        set(&mut limits.instances, *instances);
        set(&mut limits.tables, *tables);
        set(&mut limits.memories, *memories);
        set(&mut limits.timeout, timeout.map(|t| *t));
        set(&mut limits.task_timeout, task_timeout.map(|t| *t));
        set(&mut limits.max_concurrent_calls, *max_concurrent_calls);
        set(&mut limits.max_argument_bytes, bytes(max_argument_size));
        set(&mut limits.max_result_bytes, bytes(max_result_size));
        set(&mut limits.rate_limit_per_minute, *rate_limit);
        set(&mut limits.client_rate_limit_per_minute, *client_rate_limit);
        set(&mut limits.audit_arguments, *audit_arguments);
        set(&mut limits.receipts, *receipts);
        set(&mut limits.log_lines, *log_lines);
        set(&mut limits.log_bytes, bytes(log_bytes));
        set(&mut limits.host_resources, *host_resources);
        set(&mut limits.max_tools, *max_tools);
        set(&mut limits.max_schema_bytes, bytes(max_schema_size));
        set(&mut limits.max_tool_list_bytes, bytes(max_tool_list_size));
        match reuse_instances {
            Some(ReuseSpec::Calls(n)) => {
                limits.reuse_instances = *n;
                limits.reuse_per_session = false;
            }
            Some(ReuseSpec::Session) => {
                limits.reuse_instances = MAX_REUSE_INSTANCES;
                limits.reuse_per_session = true;
            }
            None => {}
        }
        set(&mut limits.ready_instances, *ready_instances);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A section of limit keys only, read as the host's config reads one.
    struct Section(LimitSpecs);

    impl<'de> Deserialize<'de> for Section {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct Visitor;
            impl<'de> de::Visitor<'de> for Visitor {
                type Value = Section;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("limit keys")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Section, A::Error> {
                    let mut specs = LimitSpecs::default();
                    while let Some(key) = map.next_key::<String>()? {
                        if !specs.accept(&key, &mut map)? {
                            return Err(de::Error::unknown_field(&key, LIMIT_KEYS));
                        }
                    }
                    Ok(Section(specs))
                }
            }
            deserializer.deserialize_map(Visitor)
        }
    }

    fn read(json: serde_json::Value) -> Result<LimitSpecs, String> {
        serde_json::from_value::<Section>(json)
            .map(|s| s.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn every_key_is_read_and_applied() {
        let specs = read(json!({
            "fuel": 7, "memory": "1 MiB", "table_elements": 8, "instances": 9, "tables": 10,
            "memories": 11, "timeout": "2s", "task_timeout": "3s", "max_concurrent_calls": 12,
            "max_argument_size": "13 B", "max_result_size": "14 B", "rate_limit": 15,
            "client_rate_limit": 16, "audit_arguments": true, "receipts": false,
            "log_lines": 17, "log_bytes": "18 B", "host_resources": 19, "max_tools": 20,
            "max_schema_size": "21 B", "max_tool_list_size": "22 B",
            "reuse_instances": "session", "ready_instances": 2
        }))
        .unwrap();
        specs.check(u64::MAX).unwrap();
        let mut limits = Limits::default();
        specs.apply(&mut limits);
        let expected = Limits {
            fuel: 7,
            memory_bytes: 1 << 20,
            table_elements: 8,
            instances: 9,
            tables: 10,
            memories: 11,
            timeout: Duration::from_secs(2),
            task_timeout: Duration::from_secs(3),
            max_concurrent_calls: 12,
            max_argument_bytes: 13,
            max_result_bytes: 14,
            rate_limit_per_minute: 15,
            client_rate_limit_per_minute: 16,
            audit_arguments: true,
            receipts: false,
            log_lines: 17,
            log_bytes: 18,
            host_resources: 19,
            max_tools: 20,
            max_schema_bytes: 21,
            max_tool_list_bytes: 22,
            reuse_instances: MAX_REUSE_INSTANCES,
            reuse_per_session: true,
            ready_instances: 2,
        };
        assert_eq!(limits, expected);
        // Nothing set changes nothing.
        let mut untouched = Limits::default();
        LimitSpecs::default().apply(&mut untouched);
        assert_eq!(untouched, Limits::default());
    }

    #[test]
    fn the_keys_are_their_fields_names_once_each() {
        let mut seen = std::collections::BTreeSet::new();
        for name in LIMIT_KEYS {
            assert!(seen.insert(*name), "{name} twice");
            // Each is a key the reader takes.
            let err = read(json!({ *name: "not a value of any limit" })).unwrap_err();
            assert!(!err.contains("unknown field"), "{name}: {err}");
        }
        assert_eq!(key::MAX_ARGUMENT_SIZE, "max_argument_size");
        assert!(
            read(json!({"fule": 1}))
                .unwrap_err()
                .contains("unknown field")
        );
    }

    #[test]
    fn a_value_out_of_range_names_its_key() {
        for (json, key) in [
            (json!({"fuel": 0}), key::FUEL),
            (json!({"memory": "1 KiB"}), key::MEMORY),
            (json!({"timeout": "0s"}), key::TIMEOUT),
            (json!({"instances": MAX_INSTANCES + 1}), key::INSTANCES),
            (
                json!({"table_elements": MAX_TABLE_ELEMENTS + 1}),
                key::TABLE_ELEMENTS,
            ),
            (
                json!({"reuse_instances": MAX_REUSE_INSTANCES + 1}),
                key::REUSE_INSTANCES,
            ),
            (
                json!({"ready_instances": MAX_READY_INSTANCES + 1}),
                key::READY_INSTANCES,
            ),
        ] {
            let problem = read(json.clone()).unwrap().check(u64::MAX).unwrap_err();
            assert_eq!(problem.key, key, "{json}");
        }
    }
}
