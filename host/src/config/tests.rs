//! Unit tests of `config`.
use super::*;
use std::time::Duration;

use crate::runtime::{Limits, MAX_REUSE_INSTANCES};
use crate::source::limits::{Bound, DEFAULT_MAX_PLUGIN_SIZE, FetchTimeouts};

const MAX: u64 = 1 << 30;

fn parse(text: &str) -> Result<Config, ConfigError> {
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
fn the_server_section_sets_the_task_store_and_checks_its_values() {
    let defaults = TaskSettings::default();
    assert_eq!(parse("").unwrap().task_options(defaults), defaults);
    let config = parse(
            "[server]\ntask_sync_window = \"0s\"\ntask_result_ttl = \"1h\"\ntask_poll_interval = \"250ms\"\nmax_tasks = 7\nmax_task_store_size = \"1 MiB\"\n",
        )
        .unwrap();
    let tasks = config.task_options(defaults);
    assert_eq!(tasks.sync_window, Duration::ZERO);
    assert_eq!(tasks.result_ttl, Duration::from_secs(3600));
    assert_eq!(tasks.poll_interval, Duration::from_millis(250));
    assert_eq!((tasks.max_tasks, tasks.max_store_bytes), (7, 1 << 20));
    for (text, key) in [
        ("[server]\nmax_tasks = 0\n", "server.max_tasks"),
        (
            "[server]\ntask_result_ttl = \"0s\"\n",
            "server.task_result_ttl",
        ),
        (
            "[server]\ntask_poll_interval = \"0s\"\n",
            "server.task_poll_interval",
        ),
        (
            "[plugins.p]\ntask_timeout = \"0s\"\n",
            "plugins.p.task_timeout",
        ),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(key), "{text}: {e}");
    }
    let config = parse("[plugins.p]\ntask_timeout = \"1h\"\n").unwrap();
    let p = config.policy_for("p").unwrap();
    assert_eq!(p.limits.task_timeout, Duration::from_secs(3600));
    assert_eq!(p.limits.timeout, Duration::from_secs(10));
}

#[test]
fn the_server_section_sets_the_uri_and_subscription_bounds_and_checks_them() {
    let defaults = ServedBounds::default();
    assert_eq!(parse("").unwrap().served_bounds(defaults.clone()), defaults);
    let config = parse(
            "[server]\nmax_uri_size = \"1 KiB\"\nmax_subscriptions = 3\nmax_watched_size = \"2 MiB\"\nmax_listen_streams = 5\n",
        )
        .unwrap();
    assert_eq!(
        config.served_bounds(defaults),
        ServedBounds {
            max_uri_bytes: 1024,
            max_subscriptions: 3,
            max_watched_bytes: 2 << 20,
            max_listen_streams: 5,
        }
    );
    for key in [
        "max_uri_size",
        "max_subscriptions",
        "max_watched_size",
        "max_listen_streams",
    ] {
        let e = parse(&format!("[server]\n{key} = 0\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(&format!("server.{key}")), "{key}: {e}");
    }
}

#[test]
fn the_server_section_bounds_the_sessions_and_checks_its_values() {
    let defaults = SessionSettings::default();
    assert_eq!(parse("").unwrap().session_options(), defaults);
    let config = parse(
            "[server]\nmax_sessions = 3\nmax_sessions_per_subject = 0\nmax_sessions_per_address = 2\nsession_idle_timeout = \"1500ms\"\n",
        )
        .unwrap();
    assert_eq!(
        config.session_options(),
        SessionSettings {
            max_sessions: 3,
            max_per_subject: 0,
            max_per_address: 2,
            idle_timeout: Duration::from_millis(1500),
        }
    );
    for (text, key) in [
        ("[server]\nmax_sessions = 0\n", "server.max_sessions"),
        (
            "[server]\nsession_idle_timeout = \"0s\"\n",
            "server.session_idle_timeout",
        ),
        (
            "[server]\nmax_sessions_per_subject = -1\n",
            "max_sessions_per_subject",
        ),
        (
            "[server]\nmax_sessions_per_address = \"many\"\n",
            "max_sessions_per_address",
        ),
    ] {
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains(key), "{text}: {e}");
    }
}

#[test]
fn the_server_section_sets_the_list_ttl_and_refuses_unknown_keys() {
    assert_eq!(parse("").unwrap().list_ttl(), None);
    let config = parse("[server]\nlist_ttl = \"2m\"\n").unwrap();
    assert_eq!(config.list_ttl(), Some(Duration::from_secs(120)));
    let e = parse("[server]\nttl = \"2m\"\n").unwrap_err().to_string();
    assert!(e.contains("ttl") && e.contains("list_ttl"), "{e}");
    let e = parse("[server]\nlist_ttl = \"soon\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("list_ttl"), "{e}");
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

const OAUTH: &str = "[server.oauth]\nissuer = \"https://idp.example.com/\"\naudience = \"https://mcp.example.com/mcp\"\njwks_uri = \"https://idp.example.com/jwks\"\n";

#[test]
fn the_oauth_section_fills_in_defaults_and_collects_the_scopes() {
    assert_eq!(parse("").unwrap().oauth(), None);
    let config = parse(&format!(
            "{OAUTH}[defaults]\nscopes = [\"mcp\"]\n[plugins.calc]\nscopes = [\"calc\"]\n[plugins.calc.tool_scopes]\ndivide = [\"calc.admin\", \"mcp\"]\n[plugins.other]\nfuel = 5\n"
        ))
        .unwrap();
    let oauth = config.oauth().unwrap();
    assert_eq!(oauth.issuer, "https://idp.example.com/");
    assert_eq!(oauth.jwks_uri.to_string(), "https://idp.example.com/jwks");
    assert_eq!(oauth.algorithms, OAuthSettings::DEFAULT_ALGORITHMS);
    assert_eq!(oauth.leeway, OAuthSettings::DEFAULT_LEEWAY);
    assert_eq!(oauth.scopes_supported, ["calc", "calc.admin", "mcp"]);
    let calc = config.policy_for("calc").unwrap().access;
    assert_eq!(calc.scopes, ["calc"]);
    assert_eq!(calc.tool_scopes["divide"], ["calc.admin", "mcp"]);
    let other = config.policy_for("other").unwrap().access;
    assert_eq!(
        (other.scopes, other.tool_scopes.len()),
        (vec!["mcp".to_string()], 0)
    );
    let config = parse(&format!(
            "{OAUTH}algorithms = [\"ES256\", \"EdDSA\"]\nleeway = \"5s\"\njwks_refetch_interval = \"0s\"\nmax_jwks_size = \"8 KiB\"\n"
        ))
        .unwrap();
    let oauth = config.oauth().unwrap();
    assert_eq!(
        oauth.algorithms,
        [
            jsonwebtoken::Algorithm::ES256,
            jsonwebtoken::Algorithm::EdDSA
        ]
    );
    assert_eq!(oauth.leeway, Duration::from_secs(5));
    assert_eq!(oauth.jwks_refetch_interval, Duration::ZERO);
    assert_eq!(oauth.max_jwks_bytes, 8 << 10);
}

#[test]
fn the_oauth_section_refuses_typos_weak_algorithms_and_plain_http() {
    let e = parse(&format!("{OAUTH}jwks_url = \"x\"\n"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 5") && e.contains("jwks_url"), "{e}");
    let e = parse("[server.oauth]\nissuer = \"https://a\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("audience"), "{e}");
    for (extra, key, why) in [
        (
            "algorithms = [\"HS256\"]\n",
            "server.oauth.algorithms",
            "HMAC",
        ),
        (
            "algorithms = [\"none\"]\n",
            "server.oauth.algorithms",
            "unsigned",
        ),
        (
            "algorithms = [\"RS1\"]\n",
            "server.oauth.algorithms",
            "not a JWS algorithm",
        ),
        (
            "algorithms = []\n",
            "server.oauth.algorithms",
            "at least one",
        ),
        ("leeway = \"1h\"\n", "server.oauth.leeway", "at most"),
        (
            "jwks_ttl = \"0s\"\n",
            "server.oauth.jwks_ttl",
            "longer than zero",
        ),
        (
            "max_jwks_size = \"1 GiB\"\n",
            "server.oauth.max_jwks_size",
            "16 MiB",
        ),
    ] {
        let e = parse(&format!("{OAUTH}{extra}")).unwrap_err().to_string();
        assert!(e.contains(key) && e.contains(why), "{extra}: {e}");
    }
    let plain = OAUTH.replace(
        "https://idp.example.com/jwks",
        "http://idp.example.com/jwks",
    );
    let e = parse(&plain).unwrap_err().to_string();
    assert!(
        e.contains("server.oauth.jwks_uri") && e.contains("loopback"),
        "{e}"
    );
    let loopback = OAUTH.replace("https://idp.example.com/jwks", "http://127.0.0.1:9/jwks");
    assert!(parse(&loopback).unwrap().oauth().is_some());
    let e = parse("[plugins.a]\nscopes = [\"two words\"]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("plugins.a.scopes") && e.contains("' '"), "{e}");
    let e = parse("[defaults.tool_scopes]\nx = [\"a\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("defaults.tool_scopes") && e.contains("per plugin"),
        "{e}"
    );
    let e = parse("[plugins.a]\nscope = [\"x\"]\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("scope"), "{e}");
    let e = parse("[plugins.a]\nscopes = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 2") && e.contains("scopes"), "{e}");
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
