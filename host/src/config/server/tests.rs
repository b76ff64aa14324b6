//! Unit tests of `config::server` and `config::oauth`: `[server]` and
//! `[server.oauth]` read, defaulted and range-checked.
use super::super::tests::parse;
use super::*;
use crate::config::OAuthSettings;
use crate::runtime::Policies as _;

const OAUTH: &str = "[server.oauth]\nissuer = \"https://idp.example.com/\"\naudience = \"https://mcp.example.com/mcp\"\njwks_uri = \"https://idp.example.com/jwks\"\n";

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
fn the_tool_clash_rule_is_read_and_a_typo_names_the_choices() {
    use mcp_wasm_host_runtime::ToolClash;
    assert_eq!(parse("").unwrap().tool_clash(), ToolClash::Qualify);
    for (text, rule) in [
        ("qualify", ToolClash::Qualify),
        ("prefix", ToolClash::Prefix),
        ("refuse", ToolClash::Refuse),
    ] {
        let config = parse(&format!("[server]\ntool_clash = \"{text}\"\n")).unwrap();
        assert_eq!(config.tool_clash(), rule);
        assert_eq!(rule.as_str(), text);
    }
    let e = parse("[server]\ntool_clash = \"Prefix\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("tool_clash") && e.contains("qualify"), "{e}");
}
