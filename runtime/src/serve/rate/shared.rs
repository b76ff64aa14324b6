//! Rate limits counted in a state store that replicas share (`[server]
//! store = { redis = … }`): one fixed window of a minute per key in the
//! store's `limits()` namespace, on the store's clock, so that N replicas
//! together allow the configured rate. A store that fails or does not
//! answer before the call's deadline refuses the call (fail closed: a
//! quota often guards an upstream's own quota, which N replicas counting
//! alone would overrun N times); the first failure and the recovery are
//! logged, naming the store.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_wasm_host_store::{Namespace, Store};
use sha2::{Digest as _, Sha256};

/// The length of a window: the limits are calls per minute.
pub(crate) const WINDOW: Duration = Duration::from_secs(60);

/// A quota's counter in the store, for one check.
pub(crate) struct Counter<'a> {
    /// The policy key that sets the quota (`rate_limit`,
    /// `client_rate_limit`).
    pub(crate) key: &'static str,
    /// The plugin, by its name.
    pub(crate) plugin: &'a str,
    /// What is counted: the plugin's own name of the tool, or a request's
    /// kind.
    pub(crate) tool: &'a str,
    /// The caller it counts for (the OAuth subject), when it is a
    /// caller's own quota.
    pub(crate) subject: Option<&'a str>,
}

impl Counter<'_> {
    /// Its key in the `limits()` namespace: a JSON array of its parts, so
    /// no two counters share a key. A subject is hashed (SHA-256): the
    /// store holds no caller's identity, and the key's length is bounded.
    fn store_key(&self) -> Vec<u8> {
        let mut parts = vec![self.key, self.plugin, self.tool];
        let hashed;
        if let Some(subject) = self.subject {
            let digest: [u8; 32] = Sha256::digest(subject.as_bytes()).into();
            hashed = hex::encode(digest);
            parts.push(&hashed);
        }
        serde_json::to_vec(&parts).unwrap_or_default()
    }
}

/// Why a counter could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unavailable(pub String);

/// The store the limits count in, and whether it is failing now (for the
/// log: one warning when it starts failing, one line when it is back).
#[derive(Debug, Clone)]
pub(crate) struct SharedCounts {
    store: Store,
    failing: Arc<AtomicBool>,
}

impl SharedCounts {
    pub(crate) fn new(store: Store) -> SharedCounts {
        SharedCounts {
            store,
            failing: Arc::default(),
        }
    }

    /// Counts one call against `counter`'s quota of `per_minute`: `Ok` when
    /// it is within the quota, else how long until the window resets. A
    /// store that fails, or has not answered by `deadline`, refuses it.
    pub(crate) async fn check(
        &self,
        counter: &Counter<'_>,
        per_minute: u32,
        deadline: Instant,
    ) -> Result<Result<(), Duration>, Unavailable> {
        let ns = Namespace::limits();
        let key = counter.store_key();
        let counted = self.store.count_in_window(&ns, key, WINDOW, 1);
        let answer = match tokio::time::timeout_at(deadline.into(), counted).await {
            Ok(Ok(window)) => Ok(window),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!(
                "count_in_window on the {} failed: no answer within the call's timeout",
                self.store.name()
            )),
        };
        match answer {
            Ok(window) => {
                if self.failing.swap(false, Ordering::Relaxed) {
                    tracing::info!(store = %self.store.name(), "the rate limits' store answers again");
                }
                if window.count <= u64::from(per_minute) {
                    Ok(Ok(()))
                } else {
                    Ok(Err(window.resets_in))
                }
            }
            Err(reason) => {
                if !self.failing.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        store = %self.store.name(),
                        "calls of tools with a rate limit are refused until the store answers: {reason}"
                    );
                }
                Err(Unavailable(reason))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_have_keys_of_their_own_and_hold_no_subject() {
        let key = |key, plugin, tool, subject| {
            Counter {
                key,
                plugin,
                tool,
                subject,
            }
            .store_key()
        };
        let keys = [
            key("rate_limit", "p", "t", None),
            key("rate_limit", "p\",\"t", "", None),
            key("rate_limit", "p", "u", None),
            key("rate_limit", "q", "t", None),
            key("client_rate_limit", "p", "t", Some("alice")),
            key("client_rate_limit", "p", "t", Some("bob")),
            key("client_rate_limit", "p", "t", None),
        ];
        let distinct: std::collections::HashSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len(), "{keys:?}");
        let alice = String::from_utf8(keys[4].clone()).unwrap();
        assert!(!alice.contains("alice"), "{alice}");
        assert_eq!(alice.len(), keys[4].len());
    }
}
