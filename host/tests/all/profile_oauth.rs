//! Profiles bound to OAuth callers (`subjects`, `scopes` in
//! `[profiles.NAME]`), against the real binary with the test as the
//! authorization server: a subject bound to a profile sees and calls only
//! it, on `/mcp` and on any `/mcp/NAME` (where it is served what both
//! admit); a caller bound to several profiles is served what all of them
//! admit; an unbound caller is served what its endpoint serves; a hidden
//! tool is answered as one nothing serves; a reload that changes what a
//! caller's binding shows tells that caller's sessions only. And a resource subscription of a
//! stdio session bound to a profile hears nothing of the resources its
//! profile hides.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use crate::common::http::Client;
use crate::common::oauth::{Jwks, SigningKey, claims, server_section};
use crate::common::revision::R4;
use crate::common::{HttpServer, JSON_LOGS, Server, plugins_with_policy};

fn policy(jwks: &Jwks) -> String {
    let section = server_section(&jwks.uri(), "");
    format!(
        r#"{section}
[plugins.encoding]
scopes = ["encode"]

[plugins.fnv]
scopes = ["hash", "fnv"]

[profiles.alice]
subjects = ["alice"]
tools = ["base64_*"]

[profiles.hashers]
scopes = ["hash"]
plugins = ["fnv"]

[profiles.enc]
plugins = ["encoding"]
"#
    )
}

/// A session at `path` (`""` is `/mcp`) of `sub` holding `scope`.
fn open(server: &HttpServer, key: &SigningKey, path: &str, sub: &str, scope: &str) -> Client {
    let token = key.sign(&claims(sub, scope));
    let mut client = Client::new(&format!("{}{path}", server.url)).with_token(&token);
    let init = client.initialize(R4);
    assert_eq!(init.status, 200, "{init:#?}");
    client
}

/// The sorted names `tools/list` gives `client`.
fn tools(client: &mut Client) -> Vec<String> {
    let response = client.request("tools/list", json!({}));
    let mut names: Vec<String> = response["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{response}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// The error of calling `name`.
fn refused(client: &mut Client, name: &str) -> Value {
    let response = client.call(90, name, json!({"text": "x"}));
    assert_eq!(response["error"]["code"], -32602, "{name}: {response}");
    response["error"].clone()
}

#[test]
fn a_subject_bound_to_a_profile_sees_only_it_on_every_endpoint() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let (_dir, plugins, config) = plugins_with_policy(
        &[test_artifacts::ENCODING, test_artifacts::FNV],
        &policy(&jwks),
    );
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);

    // alice is bound to `alice` by her subject: only base64_*, on `/mcp`.
    let mut alice = open(&server, &key, "", "alice", "encode");
    assert_eq!(tools(&mut alice), ["base64_decode", "base64_encode"]);
    let encoded = alice.call(3, "base64_encode", json!({"text": "hi"}));
    assert!(encoded.get("result").is_some(), "{encoded}");
    // A tool her scopes grant but her profile hides is unknown, as a name
    // nothing serves is.
    let hidden = refused(&mut alice, "hex_encode");
    let missing = refused(&mut alice, "no_such_tool");
    assert_eq!(
        hidden["message"]
            .as_str()
            .unwrap()
            .replace("hex_encode", "X"),
        missing["message"]
            .as_str()
            .unwrap()
            .replace("no_such_tool", "X"),
    );
    // On `/mcp/enc` she is served what both profiles admit, never more
    // than her binding.
    let mut alice_enc = open(&server, &key, "/enc", "alice", "encode");
    assert_eq!(tools(&mut alice_enc), ["base64_decode", "base64_encode"]);
    // On `/mcp/hashers` (fnv only), nothing both admit.
    let mut alice_hashers = open(&server, &key, "/hashers", "alice", "encode hash");
    assert_eq!(tools(&mut alice_hashers), Vec::<String>::new());

    // bob holds `hash`: bound to `hashers`, he sees fnv's tool only, and
    // its resource and prompt.
    let mut bob = open(&server, &key, "", "bob", "encode hash");
    assert_eq!(tools(&mut bob), ["fnv.hash"]);
    refused(&mut bob, "base64_encode");
    let prompts = bob.request("prompts/list", json!({}));
    assert_eq!(
        prompts["result"]["prompts"][0]["name"], "fnv_explain",
        "{prompts}"
    );

    // Bound to two profiles (her subject and the scope `hash`): what both
    // admit, which is nothing here.
    let mut both = open(&server, &key, "", "alice", "encode hash");
    assert_eq!(tools(&mut both), Vec::<String>::new());

    // carol is bound to nothing (`fnv` grants the plugin but binds no
    // profile): `/mcp` serves what her scopes grant, `/mcp/enc` its profile.
    let mut carol = open(&server, &key, "", "carol", "encode fnv");
    let all = tools(&mut carol);
    assert!(
        all.contains(&"fnv.hash".to_string()) && all.contains(&"hex_encode".to_string()),
        "{all:?}"
    );
    let mut carol_enc = open(&server, &key, "/enc", "carol", "encode fnv");
    let enc = tools(&mut carol_enc);
    assert!(
        enc.contains(&"hex_encode".to_string()) && !enc.contains(&"fnv.hash".to_string()),
        "{enc:?}"
    );
}

#[test]
fn a_reload_that_changes_a_binding_tells_its_callers_sessions_only() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let policy = policy(&jwks);
    let (_dir, plugins, config) =
        plugins_with_policy(&[test_artifacts::ENCODING, test_artifacts::FNV], &policy);
    let server = HttpServer::start(&plugins, &["--config", &config, JSON_LOGS[0], JSON_LOGS[1]]);
    server.wait_for_stderr("watching the plugins directory");
    let mut alice = open(&server, &key, "", "alice", "encode");
    let alice_stream = alice.listen();
    let mut bob = open(&server, &key, "", "bob", "encode hash");
    let bob_stream = bob.listen();
    let mut carol = open(&server, &key, "", "carol", "encode fnv");
    let carol_stream = carol.listen();
    assert_eq!(tools(&mut alice), ["base64_decode", "base64_encode"]);
    tools(&mut bob);
    tools(&mut carol);

    // alice's profile now admits the hex tools too.
    std::fs::write(
        &config,
        policy.replace(
            r#"tools = ["base64_*"]"#,
            r#"tools = ["base64_*", "hex_*"]"#,
        ),
    )
    .unwrap();
    let told = alice_stream
        .recv_timeout(crate::common::DEADLINE)
        .unwrap_or_else(|_| panic!("alice heard nothing:\n{}", server.stderr()));
    assert_eq!(told["method"], "notifications/tools/list_changed", "{told}");
    assert_eq!(
        tools(&mut alice),
        ["base64_decode", "base64_encode", "hex_decode", "hex_encode"]
    );
    // Each group of sessions is told in one pass: once alice's line is
    // logged, bob's or carol's would have been.
    let logged = crate::profiles::logged(&server, "a profile's lists changed");
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].text("profile"), "alice", "{logged:?}");
    assert_eq!(crate::profiles::changes(&bob_stream), 0);
    assert_eq!(crate::profiles::changes(&carol_stream), 0);
}

#[test]
fn a_subscription_hears_nothing_of_a_resource_its_profile_hides() {
    let policy = r#"
[profiles.tests]
resources = ["test://*"]
"#;
    let (_dir, plugins, config) = plugins_with_policy(&[test_artifacts::CONFORMANCE], policy);
    let mut s = Server::initialized(&plugins, &["--config", &config, "--profile", "tests"], R4);
    s.request("resources/list", json!({}));
    for uri in ["fnv://offset-basis", "test://static-text"] {
        let subscribed = s.request("resources/subscribe", json!({"uri": uri}));
        assert!(subscribed.get("result").is_some(), "{subscribed}");
    }
    // fnv comes, serving a subscribed URI the profile hides: not told.
    std::fs::copy(test_artifacts::FNV, plugins.join("fnv.wasm")).unwrap();
    s.wait_for_notification("notifications/tools/list_changed");
    let read = s.request("resources/read", json!({"uri": "fnv://offset-basis"}));
    assert!(read.get("error").is_some(), "{read}");
    // fnv goes, then conformance: only the URI in view is told, and any
    // update of fnv's URI would have come before it.
    std::fs::remove_file(plugins.join("fnv.wasm")).unwrap();
    s.wait_for_notification("notifications/tools/list_changed");
    std::fs::remove_file(plugins.join("conformance.wasm")).unwrap();
    let updated = s.wait_for_notification("notifications/resources/updated");
    assert_eq!(updated["params"]["uri"], "test://static-text");
    let told: Vec<&Value> = s
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/resources/updated")
        .collect();
    assert!(told.is_empty(), "{told:?}");
}
