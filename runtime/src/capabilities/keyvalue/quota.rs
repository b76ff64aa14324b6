//! The keyvalue capability's quotas: their policy keys, defaults and
//! bounds, and the words a guest over one reads (naming the key).

use bytesize::ByteSize;

use crate::units::{bytes, count};

/// What one plugin's buckets may hold and one call may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quotas {
    /// The longest key, in bytes (`max_key_size`).
    pub key_size: u64,
    /// The largest value, in bytes (`max_value_size`).
    pub value_size: u64,
    /// The most entries one namespace (a bucket, for one owner) holds
    /// (`max_keys`).
    pub keys: u64,
    /// The most bytes, keys and values, one namespace holds (`max_bytes`).
    pub bytes: u64,
    /// The most keys in one batch operation (`max_batch`).
    pub batch: u64,
    /// The most store operations in one call (`max_operations`).
    pub operations: u64,
}

impl Default for Quotas {
    fn default() -> Self {
        Quotas {
            key_size: 1024,
            value_size: 1024 * 1024,
            keys: 10_000,
            bytes: 64 * 1024 * 1024,
            batch: 100,
            operations: 1000,
        }
    }
}

/// The quota keys, as written in `[plugins.NAME.keyvalue]`.
pub mod key {
    /// The longest key.
    pub const MAX_KEY_SIZE: &str = "max_key_size";
    /// The largest value.
    pub const MAX_VALUE_SIZE: &str = "max_value_size";
    /// The most entries in a namespace.
    pub const MAX_KEYS: &str = "max_keys";
    /// The most bytes in a namespace.
    pub const MAX_BYTES: &str = "max_bytes";
    /// The most keys in a batch.
    pub const MAX_BATCH: &str = "max_batch";
    /// The most operations in a call.
    pub const MAX_OPERATIONS: &str = "max_operations";
}

/// The largest `max_value_size` a policy may set: a value crosses the
/// host whole, in each direction.
pub const VALUE_SIZE_BOUND: u64 = 64 * 1024 * 1024;

/// The largest `max_batch` a policy may set (the store's page size).
pub const BATCH_BOUND: u64 = mcp_wasm_host_store::MAX_PAGE as u64;

/// The quotas as written: each `None` keeps its default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuotaSpec {
    pub(super) max_key_size: Option<ByteSize>,
    pub(super) max_value_size: Option<ByteSize>,
    pub(super) max_keys: Option<u64>,
    pub(super) max_bytes: Option<ByteSize>,
    pub(super) max_batch: Option<u64>,
    pub(super) max_operations: Option<u64>,
}

impl QuotaSpec {
    /// The quotas, or the key (relative to the `keyvalue` table) whose value
    /// is out of its bounds and why.
    pub fn quotas(&self) -> Result<Quotas, (&'static str, String)> {
        let d = Quotas::default();
        let within =
            |key: &'static str, value: u64, min: u64, max: u64, show: fn(u64) -> String| {
                if (min..=max).contains(&value) {
                    Ok(value)
                } else {
                    Err((key, format!("must be from {} to {}", show(min), show(max))))
                }
            };
        let size = |s: Option<ByteSize>, default: u64| s.map_or(default, |s| s.as_u64());
        Ok(Quotas {
            key_size: within(
                key::MAX_KEY_SIZE,
                size(self.max_key_size, d.key_size),
                1,
                mcp_wasm_host_store::MAX_KEY_LEN as u64,
                bytes,
            )?,
            value_size: within(
                key::MAX_VALUE_SIZE,
                size(self.max_value_size, d.value_size),
                1,
                VALUE_SIZE_BOUND,
                bytes,
            )?,
            keys: within(
                key::MAX_KEYS,
                self.max_keys.unwrap_or(d.keys),
                1,
                u64::MAX,
                count,
            )?,
            bytes: within(
                key::MAX_BYTES,
                size(self.max_bytes, d.bytes),
                1,
                u64::MAX,
                bytes,
            )?,
            batch: within(
                key::MAX_BATCH,
                self.max_batch.unwrap_or(d.batch),
                1,
                BATCH_BOUND,
                count,
            )?,
            operations: within(
                key::MAX_OPERATIONS,
                self.max_operations.unwrap_or(d.operations),
                1,
                u64::MAX,
                count,
            )?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unset_quotas_keep_their_defaults_and_out_of_bounds_ones_name_their_key() {
        assert_eq!(QuotaSpec::default().quotas(), Ok(Quotas::default()));
        let spec = QuotaSpec {
            max_key_size: Some(ByteSize::kib(9)),
            ..QuotaSpec::default()
        };
        assert_eq!(spec.quotas().unwrap_err().0, key::MAX_KEY_SIZE);
        let spec = QuotaSpec {
            max_batch: Some(0),
            ..QuotaSpec::default()
        };
        assert_eq!(spec.quotas().unwrap_err().0, key::MAX_BATCH);
        let spec = QuotaSpec {
            max_value_size: Some(ByteSize::kib(2)),
            max_operations: Some(5),
            ..QuotaSpec::default()
        };
        let q = spec.quotas().unwrap();
        assert_eq!((q.value_size, q.operations), (2048, 5));
    }
}
