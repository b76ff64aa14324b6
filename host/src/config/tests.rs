//! Unit tests of `config`.
use super::*;
use std::time::Duration;

use crate::runtime::{Limits, MAX_REUSE_INSTANCES};
use crate::source::limits::{Bound, DEFAULT_MAX_PLUGIN_SIZE, FetchTimeouts};

const MAX: u64 = 1 << 30;

pub(super) fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(Path::new("/etc/mcp-wasm-host.toml"), text, MAX)
}

#[test]
fn a_complete_file_resolves_per_plugin() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let path = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(
        &path,
        r#"
[defaults]
fuel = 500_000_000
memory = "64 MiB"
timeout = "5s"

[plugins.text]
timeout = "30s"
max_concurrent_calls = 2
rate_limit = 0
env = { GREETING = "hello" }
env_passthrough = ["HOME"]
[[plugins.text.mounts]]
host = "data"
guest = "/data"
write = true
"#,
    )
    .unwrap();
    let config = Config::load(&path, MAX).unwrap();
    let text = config.policy_for("text").unwrap();
    assert_eq!(text.limits.fuel, 500_000_000);
    assert_eq!(text.limits.memory_bytes, 64 << 20);
    assert_eq!(text.limits.timeout, Duration::from_secs(30));
    assert_eq!(text.limits.max_concurrent_calls, 2);
    assert_eq!(text.limits.rate_limit_per_minute, 0);
    assert_eq!(text.grants.filesystem.mounts.len(), 1);
    assert_eq!(
        text.grants.filesystem.mounts[0].host,
        dir.path().join("data").canonicalize().unwrap()
    );
    assert!(text.grants.filesystem.mounts[0].write);
    assert_eq!(
        text.grants.env.vars,
        [("GREETING".to_string(), "hello".to_string())]
    );
    let other = config.policy_for("json").unwrap();
    assert_eq!(other.limits.timeout, Duration::from_secs(5));
    assert!(other.grants.filesystem.mounts.is_empty() && other.grants.env.vars.is_empty());
    let loaded = ["json".to_string()];
    assert_eq!(
        config.unused_sections(&loaded).collect::<Vec<_>>(),
        ["text"]
    );
}

#[test]
fn typos_and_wrong_types_name_the_line_and_key() {
    let e = parse("[defaults]\nfule = 5\n").unwrap_err().to_string();
    assert!(
        e.contains("/etc/mcp-wasm-host.toml") && e.contains("line 2") && e.contains("fule"),
        "{e}"
    );
    let e = parse("[plugins.text]\ntimeout = 5\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("timeout"), "{e}");
    let e = parse("[plugins.text]\nmemory = \"lots\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("memory"), "{e}");
    let e = parse("[plugin.text]\n").unwrap_err().to_string();
    assert!(e.contains("line 1") && e.contains("plugin"), "{e}");
    let e = parse("[[plugins.t.mounts]]\nhost = \"x\"\nguest = \"/x\"\nwrite = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 4") && e.contains("write"), "{e}");
}

#[test]
fn values_are_range_checked() {
    let e = parse("[defaults]\nmemory = \"4 GiB\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`defaults.memory`"), "{e}");
    let e = parse("[plugins.a]\ntimeout = \"0s\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("`plugins.a.timeout`"), "{e}");
    let e = parse("[[plugins.a.mounts]]\nhost = \".\"\nguest = \"data\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be absolute"), "{e}");
    let e = parse("[[defaults.mounts]]\nhost = \".\"\nguest = \"/d\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("granted per plugin"), "{e}");
}

#[test]
fn tool_list_bounds_default_and_are_overridden_per_plugin() {
    let config = parse(
            "[defaults]\nmax_tools = 50\n[plugins.big]\nmax_tools = 100_000\nmax_schema_size = \"1 MiB\"\nmax_tool_list_size = \"64 MiB\"\n",
        )
        .unwrap();
    let big = config.policy_for("big").unwrap().limits;
    assert_eq!(
        (big.max_tools, big.max_schema_bytes, big.max_tool_list_bytes),
        (100_000, 1 << 20, 64 << 20)
    );
    let other = config.policy_for("other").unwrap().limits;
    let d = Limits::default();
    assert_eq!(
        (
            other.max_tools,
            other.max_schema_bytes,
            other.max_tool_list_bytes
        ),
        (50, d.max_schema_bytes, d.max_tool_list_bytes)
    );
    for (text, key) in [
        ("[defaults]\nmax_tools = 0\n", "`defaults.max_tools`"),
        (
            "[plugins.a]\nmax_schema_size = 0\n",
            "`plugins.a.max_schema_size`",
        ),
        (
            "[plugins.a]\nmax_tool_list_size = \"0 B\"\n",
            "`plugins.a.max_tool_list_size`",
        ),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains("at least 1"), "{e}");
    }
    let e = parse("[defaults]\nmax_tools = \"many\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("max_tools"), "{e}");
}

#[test]
fn instance_reuse_is_off_unless_set_and_a_plugin_may_turn_it_off() {
    let config = parse(
            "[defaults]\nreuse_instances = 8\n[plugins.a]\nreuse_instances = 0\n[plugins.b]\nfuel = 5\n",
        )
        .unwrap();
    let reuse = |name: &str| config.policy_for(name).unwrap().limits.reuse_instances;
    assert_eq!((reuse("a"), reuse("b"), reuse("unlisted")), (0, 8, 8));
    let builtin = Config::builtin(MAX);
    assert_eq!(builtin.policy_for("a").unwrap().limits.reuse_instances, 0);
    let e = parse("[plugins.a]\nreuse_instances = 1_000_001\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`plugins.a.reuse_instances`") && e.contains("at most 1,000,000"),
        "{e}"
    );
    for text in [
        "[defaults]\nreuse_instances = -1\n",
        "[defaults]\nreuse_instances = \"yes\"\n",
        "[defaults]\nreuse_instance = 2\n",
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("reuse_instance"),
            "{text}: {e}"
        );
    }
}

#[test]
fn session_reuse_is_a_value_of_reuse_instances_and_a_plugin_may_override_it() {
    let config = parse(
            "[defaults]\nreuse_instances = \"session\"\n[plugins.a]\nreuse_instances = 4\n[plugins.b]\nready_instances = 2\n",
        )
        .unwrap();
    let limits = |name: &str| config.policy_for(name).unwrap().limits;
    let (a, b) = (limits("a"), limits("b"));
    assert!(!a.reuse_per_session && a.reuse_instances == 4);
    assert!(b.reuse_per_session && b.reuse_instances == MAX_REUSE_INSTANCES);
    assert_eq!((a.ready_instances, b.ready_instances), (0, 2));
    let builtin = Config::builtin(MAX).policy_for("a").unwrap().limits;
    assert!(!builtin.reuse_per_session, "off by default");
    for text in [
        "[plugins.a]\nreuse_instances = \"sessions\"\n",
        "[plugins.a]\nreuse_instances = \"per-session\"\n",
        "[plugins.a]\nreuse_instances = true\n",
        "[plugins.a]\nreuse_instances = 4_294_967_296\n",
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(
            e.contains("line 2") && e.contains("reuse_instances") && e.contains("\"session\""),
            "{text}: {e}"
        );
    }
    let e = parse("[defaults]\nready_instances = 17\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`defaults.ready_instances`") && e.contains("at most 16"),
        "{e}"
    );
}

#[test]
fn engine_counts_past_what_the_pool_holds_are_refused_naming_the_key() {
    for (key, max, over) in [
        ("instances", "256", "257"),
        ("tables", "256", "257"),
        ("memories", "64", "65"),
        ("table_elements", "100,000", "100_001"),
    ] {
        let e = parse(&format!("[plugins.p]\n{key} = {over}\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("`plugins.p.{key}`")) && e.contains(&format!("at most {max}")),
            "{key}: {e}"
        );
        let max = max.replace(',', "_");
        let c = parse(&format!("[defaults]\n{key} = {max}\n")).unwrap();
        let limits = c.policy_for("p").unwrap().limits.clone();
        let set = match key {
            "instances" => u64::from(limits.instances),
            "tables" => u64::from(limits.tables),
            "memories" => u64::from(limits.memories),
            _ => limits.table_elements,
        };
        assert_eq!(set.to_string(), max.replace('_', ""), "{key}");
    }
}

#[test]
fn fetch_bounds_are_read_per_plugin_and_named_by_their_keys() {
    let config = parse(
            "[server]\nfetch_connect_timeout = \"2s\"\nfetch_first_byte_timeout = \"3s\"\nfetch_timeout = \"1m\"\n[defaults]\nmax_plugin_size = \"8 MiB\"\n[plugins.a]\nsource = \"oci://r/a:v1\"\n[plugins.b]\nsource = \"oci://r/b:v1\"\nmax_plugin_size = 1000\n",
        )
        .unwrap();
    let t = config.fetch_timeouts();
    assert_eq!(
        t.connect,
        Bound::new(Duration::from_secs(2), "server.fetch_connect_timeout")
    );
    assert_eq!(
        t.first_byte,
        Bound::new(Duration::from_secs(3), "server.fetch_first_byte_timeout")
    );
    assert_eq!(
        t.total,
        Bound::new(Duration::from_secs(60), "server.fetch_timeout")
    );
    let sources = config.sources();
    assert_eq!(
        sources[0].max_size,
        Bound::new(8 << 20, "defaults.max_plugin_size")
    );
    assert_eq!(
        sources[1].max_size,
        Bound::new(1000, "plugins.b.max_plugin_size")
    );
    assert!(sources[0].pin_key.contains("`sha256` in [plugins.a]"));
    let none = parse("[plugins.a]\nsource = \"oci://r/a:v1\"\n").unwrap();
    assert_eq!(none.fetch_timeouts(), FetchTimeouts::policy_defaults());
    assert_eq!(none.sources()[0].max_size.value, DEFAULT_MAX_PLUGIN_SIZE);
    for (text, key) in [
        (
            "[server]\nfetch_timeout = \"0s\"\n",
            "`server.fetch_timeout`",
        ),
        (
            "[server]\nfetch_connect_timeout = \"0ms\"\n",
            "`server.fetch_connect_timeout`",
        ),
        (
            "[defaults]\nmax_plugin_size = 0\n",
            "`defaults.max_plugin_size`",
        ),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(key), "{text}: {e}");
    }
}

/// The class: a section name is held to the plugin-name rule, whatever
/// the section holds; the message names the section as written.
#[test]
fn section_names_must_be_plugin_names() {
    for bad in [
        "../x", "..", ".", "a/b", "a\\\\b", ".x", "", "x y", "-x", "a/../b",
    ] {
        for body in ["fuel = 5\n", "source = \"oci://r/a:v1\"\n"] {
            let text = format!("[plugins.\"{bad}\"]\n{body}");
            let e = parse(&text).unwrap_err().to_string();
            assert!(
                e.contains("is not a plugin name") && e.contains("`plugins.\""),
                "{text}: {e}"
            );
        }
    }
    for good in ["a", "word_count", "v1.2", "Text-2"] {
        parse(&format!("[plugins.\"{good}\"]\nfuel = 5\n")).unwrap();
    }
}

#[test]
fn sources_and_signature_keys_are_read_and_checked() {
    let config = parse(
            "[server]\nplain_http_registries = [\"registry.internal:5000\"]\n[defaults]\nsignature_keys = [\"keys/team.pub\"]\n[plugins.a]\nsource = \"oci://127.0.0.1:5000/plugins/a:v1\"\n[plugins.b]\nsource = \"oci://registry.internal:5000/b:v2\"\nsignature_keys = [\"b.pub\"]\n[plugins.c]\nfuel = 5\n",
        )
        .unwrap();
    assert_eq!(config.plain_http_registries(), ["registry.internal:5000"]);
    let sources = config.sources();
    let names: Vec<&str> = sources.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let a = sources[0].keys.as_ref().unwrap();
    assert_eq!(a.policy_key, "defaults.signature_keys");
    assert_eq!(a.paths, [Path::new("/etc/keys/team.pub")]);
    let b = sources[1].keys.as_ref().unwrap();
    assert_eq!(b.policy_key, "plugins.b.signature_keys");
    assert_eq!(b.paths, [Path::new("/etc/b.pub")]);
    assert_eq!(
        sources[0].source.to_string(),
        "oci://127.0.0.1:5000/plugins/a:v1"
    );
    assert!(config.policy_for("a").is_ok());
    for (text, key, problem) in [
        (
            "[defaults]\nsource = \"oci://r/a:v1\"\n",
            "`defaults.source`",
            "[plugins.NAME]",
        ),
        (
            "[plugins.a]\nsource = \"oci://r/a\"\n",
            "`plugins.a.source`",
            "name a tag",
        ),
        (
            "[plugins.a]\nsource = \"https://example.com/a.wasm\"\n",
            "`plugins.a.source`",
            "set `sha256`",
        ),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(problem), "{text}: {e}");
    }
    for (text, key) in [
        ("[plugins.a]\nsorce = \"oci://r/a:v1\"\n", "sorce"),
        ("[defaults]\nsignature_key = [\"k.pub\"]\n", "signature_key"),
        ("[server]\nplain_http = [\"r\"]\n", "plain_http"),
        ("[plugins.a]\nsource = 5\n", "source"),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains("line ") && e.contains(key), "{text}: {e}");
    }
}

#[test]
fn a_pinned_digest_is_checked_and_resolved() {
    let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let config = parse(&format!(
        "[plugins.a]\nsha256 = \"{}\"\n",
        hex.to_uppercase()
    ))
    .unwrap();
    assert_eq!(
        config
            .policy_for("a")
            .unwrap()
            .sha256
            .map(|d| d.to_string()),
        Some(hex.to_string())
    );
    assert_eq!(config.policy_for("b").unwrap().sha256, None);
    let e = parse("[plugins.a]\nsha256 = \"abc\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`plugins.a.sha256`") && e.contains("64 hexadecimal"),
        "{e}"
    );
    let e = parse(&format!("[defaults]\nsha256 = \"{hex}\"\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("`defaults.sha256`"), "{e}");
}

#[test]
fn requests_to_the_client_are_granted_per_plugin_and_kind() {
    let config = parse(
            "[plugins.a.client]\nsampling = true\nelicitation = true\n[plugins.b.client]\nelicitation = true\nroots = true\n[plugins.c]\nfuel = 5\n",
        )
        .unwrap();
    let grant = |name: &str| {
        let c = config.policy_for(name).unwrap().grants.client;
        (c.sampling, c.elicitation, c.roots)
    };
    assert_eq!(grant("a"), (true, true, false));
    assert_eq!(grant("b"), (false, true, true));
    assert_eq!(grant("c"), (false, false, false));
    assert_eq!(grant("unlisted"), (false, false, false));
    let e = parse("[plugins.a.client]\nsampling = true\nlogging = true\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 3") && e.contains("logging"), "{e}");
    let e = parse("[plugins.a.client]\nsampling = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("sampling"), "{e}");
    let e = parse("[defaults.client]\nsampling = true\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`defaults.client`") && e.contains("granted per plugin"),
        "{e}"
    );
}

#[test]
fn a_secret_injected_into_an_origin_the_plugin_cannot_reach_is_refused() {
    let secret = "[plugins.a.secrets.T]\nenv = \"PATH\"\norigin = \"https://api.example.com\"\nheader = \"Authorization\"\n";
    let config = parse(&format!(
        "[plugins.a.http]\nallow = [\"https://other.example.com\"]\n{secret}"
    ))
    .unwrap();
    let e = config.policy_for("a").unwrap_err().to_string();
    assert!(
        e.contains("`plugins.a.secrets.T.origin`") && e.contains("http.allow"),
        "{e}"
    );
    for allow in ["https://api.example.com/v3", "https://*.example.com"] {
        let config = parse(&format!(
            "[plugins.a.http]\nallow = [\"{allow}\"]\n{secret}"
        ))
        .unwrap();
        let policy = config.policy_for("a").unwrap();
        assert_eq!(policy.grants.secrets.injections().count(), 1, "{allow}");
    }
}

#[test]
fn block_secrets_is_set_in_the_defaults_or_per_plugin_but_secrets_only_per_plugin() {
    let config = parse(
            "[defaults]\nblock_secrets = true\n[plugins.a]\nblock_secrets = false\n[plugins.b.secrets.T]\nenv = \"PATH\"\nexpose = true\n",
        )
        .unwrap();
    assert!(!config.policy_for("a").unwrap().grants.secrets.block);
    let b = config.policy_for("b").unwrap();
    assert!(b.grants.secrets.block);
    assert_eq!(b.grants.secrets.secrets.len(), 1);
    assert!(config.policy_for("c").unwrap().grants.secrets.block);
    assert!(
        !parse("")
            .unwrap()
            .policy_for("c")
            .unwrap()
            .grants
            .secrets
            .block
    );
    let e = parse("[defaults.secrets.T]\nenv = \"PATH\"\nexpose = true\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`defaults.secrets`") && e.contains("granted per plugin"),
        "{e}"
    );
    let e = parse("[plugins.a]\nblock_secrets = \"yes\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("block_secrets"), "{e}");
}

#[test]
fn a_missing_mount_is_an_error_for_that_plugin_only() {
    let config =
        parse("[[plugins.a.mounts]]\nhost = \"/definitely/not/here\"\nguest = \"/d\"\n").unwrap();
    let e = config.policy_for("a").unwrap_err().to_string();
    assert!(
        e.contains("plugins.a.mounts[0].host") && e.contains("/definitely/not/here"),
        "{e}"
    );
    assert!(config.policy_for("b").is_ok());
}
