//! What one replica tells the others when its catalog changed: the digest
//! of each list it serves now and which plugin versions it replaced or
//! removed, tagged with the replica's name. It names what changed, never a
//! payload: each replica builds what its own clients may see.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::mcp::protocol::{convert, convert_served};
use crate::runtime::{Catalog, Sha256Digest};

/// The encoding's version; a message of another is ignored.
const VERSION: u32 = 1;

/// The SHA-256 of each list as its clients would get it whole, in hex:
/// replicas that load the same files and policy get the same digests.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lists {
    /// The tool list.
    pub tools: String,
    /// The resources and resource templates.
    pub resources: String,
    /// The prompts.
    pub prompts: String,
}

impl Lists {
    /// The digests of `catalog`'s lists.
    pub fn of(catalog: &Catalog) -> Lists {
        let tools: Vec<_> = catalog.tools().iter().map(convert::tool).collect();
        let resources: Vec<_> = catalog
            .resources()
            .iter()
            .map(|r| convert_served::resource(&r.info))
            .collect();
        let templates: Vec<_> = catalog
            .templates()
            .iter()
            .map(|t| convert_served::template(&t.info))
            .collect();
        let prompts: Vec<_> = catalog
            .prompts()
            .iter()
            .map(|p| convert_served::prompt(&p.name, &p.info))
            .collect();
        Lists {
            tools: digest(&tools),
            resources: digest(&(resources, templates)),
            prompts: digest(&prompts),
        }
    }
}

/// The SHA-256 of `value` as JSON, in hex (of nothing, if it does not
/// encode: it always does, for the lists above).
fn digest(value: &impl Serialize) -> String {
    let bytes = serde_json::to_vec(value).unwrap_or_default();
    hex::encode(Sha256::digest(bytes))
}

/// A plugin version a replica stopped serving: replaced by `to`, or
/// removed (`None`). A resource whose plugin was `from` may read
/// differently now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Transition {
    /// The version it served.
    pub from: Sha256Digest,
    /// The version it serves now, if any.
    pub to: Option<Sha256Digest>,
}

/// The version of each plugin a catalog serves, by name.
pub type Versions = Vec<(Arc<str>, Sha256Digest)>;

/// The versions of `catalog`'s plugins (kept instead of the catalog, so
/// that a replaced plugin's compiled code is not held on to).
pub fn versions(catalog: &Catalog) -> Versions {
    catalog
        .plugins()
        .iter()
        .map(|p| (p.name.clone(), p.digest))
        .collect()
}

/// The plugin versions of `old` that `new` no longer serves under the same
/// name. A plugin added is none: no resource was served by it before.
pub fn transitions(old: &Versions, new: &Versions) -> Vec<Transition> {
    old.iter()
        .filter_map(|(name, was)| {
            let now = new.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
            (now != Some(*was)).then_some(Transition {
                from: *was,
                to: now,
            })
        })
        .collect()
}

/// A replica's catalog changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The replica that changed (random, made at its start).
    pub replica: String,
    /// Its lists now.
    pub lists: Lists,
    /// The plugin versions it stopped serving.
    pub plugins: Vec<Transition>,
}

/// The wire form of a [`Change`].
#[derive(Serialize, Deserialize)]
struct Wire {
    v: u32,
    replica: String,
    lists: Lists,
    #[serde(default)]
    plugins: Vec<WireTransition>,
}

#[derive(Serialize, Deserialize)]
struct WireTransition {
    from: String,
    to: Option<String>,
}

/// Why a message is not a change this server reads.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not the JSON of a change.
    #[error("not a catalog change: {0}")]
    Json(#[from] serde_json::Error),
    /// Another encoding's version (a newer or older server).
    #[error("a catalog change of encoding version {0}, not {VERSION}")]
    Version(u32),
    /// A plugin version that is not a digest.
    #[error(transparent)]
    Digest(#[from] crate::runtime::NotADigest),
}

impl Change {
    /// The message published for it.
    pub fn encode(&self) -> Vec<u8> {
        let wire = Wire {
            v: VERSION,
            replica: self.replica.clone(),
            lists: self.lists.clone(),
            plugins: self
                .plugins
                .iter()
                .map(|t| WireTransition {
                    from: t.from.to_string(),
                    to: t.to.map(|d| d.to_string()),
                })
                .collect(),
        };
        serde_json::to_vec(&wire).unwrap_or_default()
    }

    /// The change a message says.
    pub fn decode(bytes: &[u8]) -> Result<Change, DecodeError> {
        let wire: Wire = serde_json::from_slice(bytes)?;
        if wire.v != VERSION {
            return Err(DecodeError::Version(wire.v));
        }
        let plugins = wire
            .plugins
            .iter()
            .map(|t| {
                Ok(Transition {
                    from: Sha256Digest::from_hex(&t.from)?,
                    to: t.to.as_deref().map(Sha256Digest::from_hex).transpose()?,
                })
            })
            .collect::<Result<_, DecodeError>>()?;
        Ok(Change {
            replica: wire.replica,
            lists: wire.lists,
            plugins,
        })
    }
}

/// A new replica's name: 64 random bits in hex, or the process id and the
/// time when the system gives no random bytes (only told apart from the
/// other replicas).
pub fn replica_name() -> String {
    let mut id = [0u8; 8];
    match getrandom::fill(&mut id) {
        Ok(()) => hex::encode(id),
        Err(_) => format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change() -> Change {
        Change {
            replica: "a1".into(),
            lists: Lists {
                tools: "t".into(),
                resources: "r".into(),
                prompts: "p".into(),
            },
            plugins: vec![
                Transition {
                    from: Sha256Digest([1; 32]),
                    to: Some(Sha256Digest([2; 32])),
                },
                Transition {
                    from: Sha256Digest([3; 32]),
                    to: None,
                },
            ],
        }
    }

    #[test]
    fn a_change_round_trips_and_names_no_payload() {
        let bytes = change().encode();
        assert_eq!(Change::decode(&bytes).unwrap(), change());
        let text = String::from_utf8(bytes).unwrap();
        assert!(text.contains(r#""v":1"#), "{text}");
        assert!(text.contains(&"02".repeat(32)), "{text}");
    }

    #[test]
    fn other_versions_and_garbage_are_refused() {
        let mut value: serde_json::Value = serde_json::from_slice(&change().encode()).unwrap();
        value["v"] = 2.into();
        let bytes = serde_json::to_vec(&value).unwrap();
        assert!(matches!(
            Change::decode(&bytes),
            Err(DecodeError::Version(2))
        ));
        value["v"] = 1.into();
        value["plugins"][0]["from"] = "zz".into();
        let bytes = serde_json::to_vec(&value).unwrap();
        assert!(matches!(
            Change::decode(&bytes),
            Err(DecodeError::Digest(_))
        ));
        assert!(Change::decode(b"\xff{").is_err());
    }

    #[test]
    fn a_replaced_or_removed_plugin_is_a_transition_and_an_added_one_is_not() {
        let d = |n: u8| Sha256Digest([n; 32]);
        let old: Versions = vec![("a".into(), d(1)), ("b".into(), d(2)), ("c".into(), d(3))];
        let new: Versions = vec![("a".into(), d(1)), ("b".into(), d(4)), ("n".into(), d(5))];
        assert_eq!(
            transitions(&old, &new),
            vec![
                Transition {
                    from: d(2),
                    to: Some(d(4))
                },
                Transition {
                    from: d(3),
                    to: None
                },
            ]
        );
        assert_eq!(transitions(&new, &new), vec![]);
    }

    #[test]
    fn replicas_get_different_names() {
        assert_ne!(replica_name(), replica_name());
    }
}
