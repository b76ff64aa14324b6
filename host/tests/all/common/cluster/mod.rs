//! A cluster on 127.0.0.1 for the tests of replicas that act as one server
//! (issue 46): one real `redis-server` (`common::redis`), N `serve --http`
//! replicas sharing a policy file whose `[server] store` is that Redis,
//! and nginx round robin in front with no affinity. It starts each part
//! and waits on its state (redis's "Ready to accept connections", each
//! replica's listening line and `/readyz`, nginx's port), never on a
//! sleep, and stops everything when dropped. Without redis-server or nginx
//! it says so and the test passes, except under CI or
//! `MCP_WASM_HOST_REQUIRE_ALL=1`, where it fails.
#![allow(dead_code, clippy::unwrap_used)]

pub mod load;
pub mod nginx;
pub mod replica;
pub mod tasks;

use std::path::PathBuf;

pub use nginx::{NGINX, Nginx};
pub use replica::{Replica, post};

use super::redis::Redis;
use super::{DEADLINE, Toolchain, eventually, toolchain};

/// What a cluster runs.
pub struct Spec<'a> {
    /// How many replicas.
    pub replicas: usize,
    /// The plugin files each replica serves.
    pub plugins: &'a [&'a str],
    /// More `[server]` keys, one `key = value` a line (the store is set).
    pub server: &'a str,
    /// More keys of the store's inline table, each after a comma
    /// (`, timeout = "1s"`).
    pub store: &'a str,
    /// The rest of the policy file (`[plugins.NAME]` tables, …).
    pub policy: &'a str,
    /// More arguments of each replica's `serve` (`--stateless`, …).
    pub args: &'a [&'a str],
}

impl Default for Spec<'_> {
    fn default() -> Self {
        Spec {
            replicas: 3,
            plugins: &[],
            server: "",
            store: "",
            policy: "",
            args: &["--stateless"],
        }
    }
}

/// A running cluster: the store, the replicas and the load balancer.
pub struct Cluster {
    pub redis: Redis,
    pub replicas: Vec<Replica>,
    pub nginx: Nginx,
    /// The policy file every replica reads.
    pub config: PathBuf,
    _shared: tempfile::TempDir,
}

impl Cluster {
    /// Starts redis-server, the replicas (each ready) and nginx, or
    /// `None` when the test is skipped for want of redis-server or nginx.
    pub fn start(spec: &Spec<'_>) -> Option<Cluster> {
        let nginx_bin = toolchain(&NGINX)?;
        let redis = Redis::start()?;
        let shared = tempfile::tempdir().unwrap();
        let config = shared.path().join("mcp-wasm-host.toml");
        let policy = format!(
            "[server]\nstore = {{ redis = \"{}\"{} }}\n{}\n{}",
            redis.url(),
            spec.store,
            spec.server,
            spec.policy
        );
        std::fs::write(&config, policy).unwrap();
        let key = shared.path().join("request-state.key");
        std::fs::write(&key, "a shared key of at least thirty-two bytes, for all").unwrap();
        let replicas: Vec<Replica> = (0..spec.replicas)
            .map(|_| Replica::start(spec.plugins, &config, &key, spec.args))
            .collect();
        for replica in &replicas {
            replica.wait_ready();
        }
        let upstreams: Vec<String> = replicas.iter().map(|r| r.authority.clone()).collect();
        let nginx = Nginx::start(&nginx_bin, &upstreams);
        Some(Cluster {
            redis,
            replicas,
            nginx,
            config,
            _shared: shared,
        })
    }

    /// [`Cluster::start`] of `replicas` replicas with sessions (not
    /// `--stateless`) serving `plugins`, with the default policy.
    pub fn with_sessions(replicas: usize, plugins: &[&str]) -> Option<Cluster> {
        Cluster::start(&Spec {
            replicas,
            plugins,
            args: &[],
            ..Spec::default()
        })
    }

    /// The MCP endpoint through nginx.
    pub fn url(&self) -> String {
        self.nginx.url()
    }

    /// Copies the plugin file `from` into every replica's directory as
    /// `name`, then waits until each has reloaded `plugin` `times` times.
    pub fn install_everywhere(
        &self,
        from: &std::path::Path,
        name: &str,
        plugin: &str,
        times: usize,
    ) {
        for replica in &self.replicas {
            replica.install(from, name);
        }
        for replica in &self.replicas {
            replica.reloaded(plugin, times);
        }
    }

    /// Every replica's log, for a failed assertion.
    pub fn logs(&self) -> String {
        self.replicas
            .iter()
            .map(|r| format!("--- replica {}:\n{}", r.authority, r.stderr()))
            .collect()
    }
}
