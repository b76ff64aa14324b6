//! The HTTP transport as an OAuth 2.1 resource server, against the real
//! binary. The test is the authorization server: it makes P-256 key pairs
//! (rcgen), serves their JWKS from a real HTTP server on 127.0.0.1 (and
//! counts the fetches), and mints ES256 access tokens with jsonwebtoken.
//! Covered: the protected resource metadata and the 401 challenge; valid,
//! expired, not-yet-valid, wrong-audience, wrong-issuer, unknown-key,
//! wrong-algorithm and tampered tokens; a rotated key (the server fetches
//! the JWKS again and takes the new key); the bound on fetches for unknown
//! keys; the fetch's bounds (no redirect, `max_jwks_size`, `jwks_timeout`);
//! scope-limited lists and calls of tools, resources and prompts;
//! 403 for a token that grants nothing; a session bound to its subject; the
//! audit line's subject (never the token); and the official Python SDK as a
//! client with a bearer token.
#![allow(clippy::unwrap_used)]

use crate::common::HttpServer;
use crate::common::http::{Client, get as fetch_url};
use crate::common::oauth::{AUDIENCE, ISSUER, Jwks, SigningKey, claims, now, server_section};
use crate::common::revision::R4;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

const METADATA_URL: &str = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp";

/// The policy: `encoding` for scope `encode` (its `base64_decode` for
/// `encode.admin` only), `fnv` (a tool, a prompt and a resource) for scope
/// `hash`.
fn policy(jwks: &Jwks, refetch: &str) -> String {
    policy_at(&jwks.uri(), refetch, "")
}

/// The same policy with the JWKS at `uri` and more `[server.oauth]` lines.
fn policy_at(uri: &str, refetch: &str, oauth: &str) -> String {
    let section = server_section(
        uri,
        &format!("jwks_refetch_interval = \"{refetch}\"\n{oauth}"),
    );
    format!(
        r#"{section}
[plugins.encoding]
scopes = ["encode"]
[plugins.encoding.tool_scopes]
base64_decode = ["encode.admin"]

[plugins.fnv]
scopes = ["hash"]
"#
    )
}

fn start(jwks: &Jwks, refetch: &str) -> (tempfile::TempDir, HttpServer) {
    let (dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::ENCODING, test_artifacts::FNV],
        &policy(jwks, refetch),
    );
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    (dir, server)
}

/// A client sending `token` (if any) as its bearer token.
fn bearer(url: &str, token: Option<&str>) -> Client {
    let client = Client::new(url);
    match token {
        Some(token) => client.with_token(token),
        None => client,
    }
}

/// The sorted `field`s of what a list `method` answers under `key`.
trait Names {
    fn names(&mut self, method: &str, key: &str, field: &str) -> Vec<String>;
}

impl Names for Client {
    fn names(&mut self, method: &str, key: &str, field: &str) -> Vec<String> {
        let response = self.request(method, json!({}));
        let mut names: Vec<String> = response["result"][key]
            .as_array()
            .unwrap_or_else(|| panic!("{method}: {response}"))
            .iter()
            .map(|t| t[field].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    }
}

/// A session opened with `token`, or the refusal of its `initialize`.
fn open(server: &HttpServer, token: &str) -> Client {
    let mut client = bearer(&server.url, Some(token));
    let init = client.initialize(R4);
    assert_eq!(init.status, 200, "{init:#?}");
    client
}

/// `initialize` with `token`: the refusal's status and challenge.
fn challenge_of(server: &HttpServer, token: Option<&str>) -> (u16, String) {
    let reply = bearer(&server.url, token).initialize(R4);
    let challenge = reply.header("www-authenticate").unwrap_or_default();
    (reply.status, challenge.to_string())
}

#[test]
fn the_metadata_is_public_and_a_request_without_a_token_is_challenged() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let (_dir, server) = start(&jwks, "30s");
    let origin = format!("http://{}", server.authority());
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let (status, body) = fetch_url(&format!("{origin}{path}"));
        assert_eq!(status, 200, "{path}: {body}");
        let metadata: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(metadata["resource"], AUDIENCE);
        assert_eq!(metadata["authorization_servers"], json!([ISSUER]));
        assert_eq!(
            metadata["scopes_supported"],
            json!(["encode", "encode.admin", "hash"])
        );
        assert_eq!(metadata["bearer_methods_supported"], json!(["header"]));
    }
    let (status, challenge) = challenge_of(&server, None);
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{METADATA_URL}\"")
    );
    // A GET of the MCP endpoint is refused the same way.
    let (status, _) = fetch_url(&server.url);
    assert_eq!(status, 401);
    assert_eq!(jwks.fetches(), 0, "no token, no reason to fetch keys");
}

#[test]
fn only_a_valid_token_of_the_issuer_for_this_server_gets_in() {
    let key = SigningKey::new("k1");
    let stranger = SigningKey::new("k1-but-another-key");
    let jwks = Jwks::serve(&[&key]);
    let (_dir, server) = start(&jwks, "0s");

    let mut alice = open(&server, &key.sign(&claims("alice", "encode hash")));
    assert!(
        alice
            .names("tools/list", "tools", "name")
            .contains(&"fnv.hash".to_string())
    );

    let invalid = |token: &str, why: &str| {
        let (status, challenge) = challenge_of(&server, Some(token));
        assert_eq!(status, 401, "{why}");
        assert!(
            challenge.starts_with(&format!("Bearer resource_metadata=\"{METADATA_URL}\""))
                && challenge.contains("error=\"invalid_token\""),
            "{why}: {challenge}"
        );
        challenge
    };
    let mut expired = claims("alice", "encode");
    expired["exp"] = json!(now() - 3600);
    let c = invalid(&key.sign(&expired), "expired");
    assert!(c.contains("expired"), "{c}");
    let mut early = claims("alice", "encode");
    early["nbf"] = json!(now() + 3600);
    invalid(&key.sign(&early), "not yet valid");
    let mut other_audience = claims("alice", "encode");
    other_audience["aud"] = json!("https://other.example.test/mcp");
    let c = invalid(&key.sign(&other_audience), "wrong audience");
    assert!(c.contains("audience"), "{c}");
    let mut other_issuer = claims("alice", "encode");
    other_issuer["iss"] = json!("https://evil.example.test");
    let c = invalid(&key.sign(&other_issuer), "wrong issuer");
    assert!(c.contains("issuer"), "{c}");
    let mut no_subject = claims("alice", "encode");
    no_subject.as_object_mut().unwrap().remove("sub");
    invalid(&key.sign(&no_subject), "no subject");

    // A key the issuer does not publish, and one that claims the published
    // key's ID: the first is unknown, the second's signature fails.
    let unknown = SigningKey::new("k-unknown");
    let c = invalid(&unknown.sign(&claims("alice", "encode")), "unknown key");
    assert!(c.contains("key the issuer does not publish"), "{c}");
    let mut forged = SigningKey::new("k1");
    forged.encoding = stranger.encoding;
    let c = invalid(&forged.sign(&claims("alice", "encode")), "forged");
    assert!(c.contains("signature"), "{c}");

    // A tampered payload, HS256 with the public key as the secret, and an
    // unsigned token are refused.
    let good = key.sign(&claims("alice", "encode"));
    let parts: Vec<&str> = good.split('.').collect();
    let admin = URL_SAFE_NO_PAD.encode(claims("alice", "encode encode.admin").to_string());
    invalid(
        &format!("{}.{admin}.{}", parts[0], parts[2]),
        "tampered payload",
    );
    let mut hs = Header::new(Algorithm::HS256);
    hs.kid = Some("k1".into());
    let secret = key.jwk["x"].as_str().unwrap().as_bytes().to_vec();
    let hs_token = jsonwebtoken::encode(
        &hs,
        &claims("alice", "encode"),
        &EncodingKey::from_secret(&secret),
    )
    .unwrap();
    let c = invalid(&hs_token, "HS256");
    assert!(c.contains("does not accept"), "{c}");
    let none_header = URL_SAFE_NO_PAD.encode(r#"{"alg":"none","kid":"k1"}"#);
    invalid(&format!("{none_header}.{}.", parts[1]), "alg none");
    invalid("not-a-jwt", "garbage");

    // The session still works, and the log never shows a token.
    assert!(
        alice
            .names("tools/list", "tools", "name")
            .contains(&"fnv.hash".to_string())
    );
    assert!(!server.stderr().contains(&good), "a token reached the log");
}

#[test]
fn a_rotated_key_is_fetched_and_unknown_keys_fetch_at_most_once_per_interval() {
    let old = SigningKey::new("old");
    let new = SigningKey::new("new");
    let jwks = Jwks::serve(&[&old]);
    let (_dir, server) = start(&jwks, "0s");
    open(&server, &old.sign(&claims("alice", "encode")));
    assert_eq!(jwks.fetches(), 1);
    // The issuer rotates: the old key is gone, the new one published.
    jwks.publish(&[&new]);
    open(&server, &new.sign(&claims("alice", "encode")));
    assert_eq!(jwks.fetches(), 2, "the unknown kid fetched the JWKS again");
    let (status, _) = challenge_of(&server, Some(&old.sign(&claims("alice", "encode"))));
    assert_eq!(status, 401, "the retired key's tokens are refused");

    // With an hour between fetches, a token with a key ID the cache does
    // not know does not fetch again: the rotation is not seen until then.
    let jwks = Jwks::serve(&[&old]);
    let (_dir, server) = start(&jwks, "1h");
    open(&server, &old.sign(&claims("alice", "encode")));
    jwks.publish(&[&old, &new]);
    for _ in 0..3 {
        let (status, _) = challenge_of(&server, Some(&new.sign(&claims("alice", "encode"))));
        assert_eq!(status, 401);
    }
    assert_eq!(jwks.fetches(), 1, "one fetch, whatever the tokens claim");
    open(&server, &old.sign(&claims("alice", "encode")));
}

/// The fetch follows no redirect, reads at most `max_jwks_size` and gives
/// up after `jwks_timeout`: each leaves the server without keys, so a valid
/// token gets 503, and the log says why.
#[test]
fn a_jwks_that_redirects_is_too_large_or_never_comes_gives_no_keys() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let cases = [
        ("moved", "", "the server answered 308 Permanent Redirect"),
        (
            "large",
            "max_jwks_size = \"1 KiB\"",
            "it is larger than 1024 bytes (`server.oauth.max_jwks_size`)",
        ),
        (
            "silent",
            "jwks_timeout = \"200ms\"",
            "took longer than 200ms",
        ),
    ];
    for (path, oauth, why) in cases {
        let uri = format!("http://127.0.0.1:{}/{path}", jwks.port);
        let (_dir, plugins, config) = crate::common::plugins_with_policy(
            &[test_artifacts::ENCODING, test_artifacts::FNV],
            &policy_at(&uri, "30s", oauth),
        );
        let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
        let reply = bearer(&server.url, Some(&key.sign(&claims("alice", "encode")))).initialize(R4);
        assert_eq!(reply.status, 503, "{path}: {reply:#?}");
        server.wait_for_stderr(why);
    }
    assert_eq!(jwks.fetches(), 0, "the redirect to /jwks was not followed");
    // The same key set, small enough and where it is said to be, serves.
    let (_dir, server) = start(&jwks, "30s");
    open(&server, &key.sign(&claims("alice", "encode")));
    assert_eq!(jwks.fetches(), 1);
}

#[test]
fn scopes_limit_what_a_caller_sees_and_may_call() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let (_dir, server) = start(&jwks, "30s");

    // `encode`: the encoding tools but base64_decode; nothing of fnv.
    let mut encoder = open(&server, &key.sign(&claims("enc-user", "encode")));
    let tools = encoder.names("tools/list", "tools", "name");
    assert!(tools.contains(&"base64_encode".to_string()), "{tools:?}");
    assert!(!tools.contains(&"base64_decode".to_string()), "{tools:?}");
    // Both plugins have a `hash` tool, so clients see them qualified; the
    // policy names each by the plugin's own name.
    assert!(tools.contains(&"encoding.hash".to_string()), "{tools:?}");
    assert!(!tools.contains(&"fnv.hash".to_string()), "{tools:?}");
    let ok = encoder.request(
        "tools/call",
        json!({"name": "base64_encode", "arguments": {"text": "hi"}}),
    );
    assert_eq!(crate::common::text(&ok["result"]), "aGk=", "{ok}");
    let refused = encoder.request(
        "tools/call",
        json!({"name": "base64_decode", "arguments": {"text": "aGk="}}),
    );
    let error = &refused["error"];
    assert_eq!(error["code"], -32602, "{refused}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("\"encode.admin\"")
            && message.contains("plugins.encoding.tool_scopes.base64_decode"),
        "{message}"
    );
    assert_eq!(error["data"]["scopes"], json!(["encode.admin"]));
    let refused = encoder.request(
        "tools/call",
        json!({"name": "fnv.hash", "arguments": {"text": "a"}}),
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("plugins.fnv.scopes"),
        "{refused}"
    );
    assert!(
        encoder
            .names("resources/list", "resources", "uri")
            .is_empty()
    );
    assert!(encoder.names("prompts/list", "prompts", "name").is_empty());
    let read = encoder.request("resources/read", json!({"uri": "fnv://offset-basis"}));
    assert!(
        read["error"]["message"]
            .as_str()
            .unwrap()
            .contains("\"hash\""),
        "{read}"
    );
    let prompt = encoder.request("prompts/get", json!({"name": "fnv_explain"}));
    assert!(prompt["error"].is_object(), "{prompt}");

    // `hash encode.admin`: fnv's tool, resource and prompt, and
    // base64_decode alone of the encoding tools.
    let mut hasher = open(
        &server,
        &key.sign(&claims("hash-user", "hash encode.admin")),
    );
    let tools = hasher.names("tools/list", "tools", "name");
    assert_eq!(tools, ["base64_decode", "fnv.hash"]);
    let ok = hasher.request(
        "tools/call",
        json!({"name": "fnv.hash", "arguments": {"text": ""}}),
    );
    assert_eq!(
        crate::common::text(&ok["result"]),
        "cbf29ce484222325",
        "{ok}"
    );
    assert_eq!(
        hasher.names("resources/list", "resources", "uri"),
        ["fnv://offset-basis"]
    );
    assert_eq!(
        hasher.names("prompts/list", "prompts", "name"),
        ["fnv_explain"]
    );
    let read = hasher.request("resources/read", json!({"uri": "fnv://offset-basis"}));
    assert_eq!(read["result"]["contents"][0]["text"], "cbf29ce484222325");

    // A token with none of the server's scopes: 403 insufficient_scope.
    let (status, challenge) = challenge_of(&server, Some(&key.sign(&claims("nobody", "email"))));
    assert_eq!(status, 403);
    assert!(
        challenge.contains("error=\"insufficient_scope\"")
            && challenge.contains("scope=\"encode encode.admin hash\""),
        "{challenge}"
    );

    // A session belongs to the subject that opened it (the whole class is
    // in `a_session_answers_only_to_its_subject_whatever_the_verb_or_method`).
    let mut thief = bearer(&server.url, Some(&key.sign(&claims("mallory", "encode"))));
    thief.session = encoder.session.clone();
    let stolen = thief.post(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}));
    assert_eq!(stolen.status, 404, "{stolen:#?}");
    assert_eq!(stolen.message()["error"]["code"], -32001, "{stolen:#?}");

    // The audit lines name the subject, never a token.
    let log = server.stderr();
    let audit: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("audit") && l.contains("base64_encode"))
        .collect();
    assert!(
        audit
            .iter()
            .any(|l| l.contains("subject=\"enc-user\"") || l.contains("subject=enc-user")),
        "{log}"
    );
    assert!(!log.contains("eyJ"), "a JWT reached the log:\n{log}");
}

/// Every kind of message a client can send in a session, by HTTP verb:
/// each request method the server serves, notifications, responses to the
/// server's own requests, the event stream (`GET`) and the end (`DELETE`).
/// `(label, verb, body)`; a request's id is its index.
fn every_message_and_verb() -> Vec<(String, &'static str, Option<Value>)> {
    let requests = [
        (
            "initialize",
            json!({
                "protocolVersion": R4,
                "capabilities": {},
                "clientInfo": {"name": "thief", "version": "1"}
            }),
        ),
        ("ping", json!({})),
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "base64_encode", "arguments": {"text": "hi"}}),
        ),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": "fnv://offset-basis"})),
        ("resources/subscribe", json!({"uri": "fnv://offset-basis"})),
        (
            "resources/unsubscribe",
            json!({"uri": "fnv://offset-basis"}),
        ),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "fnv_explain"})),
        (
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "fnv_explain"},
                "argument": {"name": "topic", "value": ""}
            }),
        ),
        ("logging/setLevel", json!({"level": "debug"})),
        ("tasks/list", json!({})),
        ("tasks/get", json!({"taskId": "t-1"})),
        ("tasks/result", json!({"taskId": "t-1"})),
        ("tasks/cancel", json!({"taskId": "t-1"})),
    ];
    let notifications = [
        ("notifications/initialized", json!({})),
        ("notifications/cancelled", json!({"requestId": 1})),
        (
            "notifications/progress",
            json!({"progressToken": "p", "progress": 1}),
        ),
        ("notifications/roots/list_changed", json!({})),
    ];
    let mut table: Vec<(String, &'static str, Option<Value>)> = Vec::new();
    for (id, (method, params)) in requests.into_iter().enumerate() {
        table.push((
            format!("POST {method}"),
            "POST",
            Some(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})),
        ));
    }
    for (method, params) in notifications {
        table.push((
            format!("POST {method}"),
            "POST",
            Some(json!({"jsonrpc": "2.0", "method": method, "params": params})),
        ));
    }
    table.push((
        "POST a result for the server's request".into(),
        "POST",
        Some(json!({"jsonrpc": "2.0", "id": "server-1", "result": {}})),
    ));
    table.push((
        "POST an error for the server's request".into(),
        "POST",
        Some(json!({"jsonrpc": "2.0", "id": "server-2", "error": {"code": -1, "message": "no"}})),
    ));
    table.push(("GET the event stream".into(), "GET", None));
    table.push(("DELETE the session".into(), "DELETE", None));
    table
}

#[test]
fn a_session_answers_only_to_its_subject_whatever_the_verb_or_method() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let (_dir, server) = start(&jwks, "30s");
    let every_scope = "encode encode.admin hash";
    // Alice opens a session; Mallory, with a valid token of her own that
    // grants every scope, uses it before Alice does anything else in it.
    let mut alice = open(&server, &key.sign(&claims("alice", every_scope)));
    let mut mallory = bearer(
        &server.url,
        Some(&key.sign(&claims("mallory", every_scope))),
    );
    mallory.session = alice.session.clone();
    let table = every_message_and_verb();
    assert!(table.len() > 20, "{} cases", table.len());
    for (label, verb, body) in &table {
        let reply = match body {
            Some(body) => mallory.post(body),
            None => mallory.send(verb),
        };
        assert_eq!(reply.status, 404, "{label}: {reply:#?}");
        assert!(reply.session().is_none(), "{label}: {reply:#?}");
        let message: Value = serde_json::from_str(&reply.body)
            .unwrap_or_else(|e| panic!("{label}: not a JSON-RPC error ({e}): {reply:#?}"));
        assert_eq!(message["error"]["code"], -32001, "{label}: {message}");
        // A request's error names its id; any other message's is null.
        let id = body
            .as_ref()
            .filter(|b| b.get("method").is_some())
            .and_then(|b| b.get("id"))
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(message["id"], id, "{label}: {message}");
    }
    // The refusals are the very answer of a session that does not exist.
    let mut nobody = bearer(
        &server.url,
        Some(&key.sign(&claims("mallory", every_scope))),
    );
    nobody.session = Some("no-such-session".into());
    let unknown = nobody.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let stolen = mallory.post(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(
        (unknown.status, &unknown.body),
        (stolen.status, &stolen.body)
    );

    // The session is still Alice's, with every verb: the refused DELETE
    // did not end it, the refused uses did not make it Mallory's.
    assert!(
        alice
            .names("tools/list", "tools", "name")
            .contains(&"fnv.hash".to_string())
    );
    assert_eq!(alice.send("GET").status, 200, "Alice's event stream opens");
    // A new token of the same subject, with other scopes, is the same
    // owner.
    let mut refreshed = bearer(&server.url, Some(&key.sign(&claims("alice", "encode"))));
    refreshed.session = alice.session.clone();
    let tools = refreshed.names("tools/list", "tools", "name");
    assert!(
        tools.contains(&"base64_encode".to_string())
            && !tools.contains(&"base64_decode".to_string())
            && !tools.contains(&"fnv.hash".to_string()),
        "this token's scopes decide: {tools:?}"
    );
    let log = server.stderr();
    assert!(
        log.contains("refused a request in a session of another subject")
            && (log.contains("session_subject=\"alice\"") || log.contains("session_subject=alice")),
        "{log}"
    );
    let ended = alice.send("DELETE");
    assert_eq!(ended.status, 202, "{ended:#?}");
    let after = alice.post(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}));
    assert_eq!(after.status, 404, "{after:#?}");
}

#[test]
fn one_subject_holds_at_most_its_share_of_the_sessions() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let policy = format!(
        "[server]\nmax_sessions_per_subject = 2\n{}",
        policy(&jwks, "30s")
    );
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::ENCODING, test_artifacts::FNV],
        &policy,
    );
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    let token = |sub: &str| key.sign(&claims(sub, "encode"));
    let mut held: Vec<Client> = Vec::new();
    // (subject, opened?); `None` ends the first session held.
    let steps = [
        (Some("alice"), true),
        (Some("alice"), true),
        (Some("alice"), false),
        (Some("bob"), true),
        (Some("bob"), true),
        (Some("bob"), false),
        (Some("alice"), false),
        (None, true),
        (Some("alice"), true),
        (Some("alice"), false),
    ];
    for (step, (subject, opens)) in steps.into_iter().enumerate() {
        let Some(subject) = subject else {
            let ended = held.remove(0).send("DELETE");
            assert_eq!(ended.status, 202, "step {step}: {ended:#?}");
            continue;
        };
        let mut client = bearer(&server.url, Some(&token(subject)));
        let reply = client.initialize(R4);
        if opens {
            assert_eq!(reply.status, 200, "step {step}: {reply:#?}");
            held.push(client);
            continue;
        }
        assert_eq!(reply.status, 429, "step {step}: {reply:#?}");
        assert!(reply.session().is_none());
        let message = reply.message();
        // The refusal answers the initialize request (common::http sends it
        // with id 1).
        assert_eq!(message["id"], 1, "{message}");
        assert_eq!(message["error"]["code"], -32000, "{message}");
        assert_eq!(
            message["error"]["data"]["policy_key"], "server.max_sessions_per_subject",
            "{message}"
        );
        assert!(
            message["error"]["message"]
                .as_str()
                .unwrap()
                .contains("the subject of this access token already holds 2"),
            "{message}"
        );
    }
}

#[test]
fn the_python_sdk_lists_and_calls_with_a_bearer_token() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let (_dir, server) = start(&jwks, "30s");
    let token = key.sign(&claims("py-user", "encode"));
    let summary = crate::common::run_python_client(
        "oauth_client.py",
        &[
            "--url".as_ref(),
            server.url.as_ref(),
            "--token".as_ref(),
            token.as_ref(),
        ],
    );
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(tools.contains(&"base64_encode"), "{summary}");
    assert!(
        !tools.contains(&"base64_decode") && !tools.contains(&"fnv.hash"),
        "{summary}"
    );
    assert_eq!(summary["encoded"], "aGk=", "{summary}");
    let refusal = summary["refused"].as_str().unwrap();
    assert!(refusal.contains("encode.admin"), "{summary}");
    assert_eq!(summary["refused_code"], -32602, "{summary}");
    // Without the token the SDK's connection is refused.
    let summary = crate::common::run_python_client(
        "oauth_client.py",
        &[
            "--url".as_ref(),
            server.url.as_ref(),
            "--expect-401".as_ref(),
        ],
    );
    assert_eq!(summary["refused"], true, "{summary}");
}

#[test]
fn a_user_scoped_bucket_holds_each_subjects_notes_whatever_the_session() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let policy = policy_at(&jwks.uri(), "30s", "")
        + "\n[plugins.kvnotes]\nscopes = [\"notes\"]\n"
        + "[plugins.kvnotes.keyvalue]\nbuckets = [\"notes\"]\nscope = \"user\"\n";
    let (dir, plugins, config) =
        crate::common::plugins_with_policy(&[test_artifacts::KVNOTES], &policy);
    let state = dir.path().join("state");
    let server = HttpServer::start(
        &plugins,
        &[
            "--no-watch",
            "--config",
            &config,
            "--state-dir",
            state.to_str().unwrap(),
        ],
    );
    let subjects = ["alice", "bob"];
    for subject in subjects {
        let mut session = open(&server, &key.sign(&claims(subject, "notes")));
        for n in 1..=2 {
            let text = format!("{subject}'s note {n}");
            assert_eq!(
                session.call_value("add-note", json!({"text": text})),
                json!(n)
            );
        }
    }
    // A new session of each subject, with a new token, sees that subject's
    // notes and no one else's.
    for subject in subjects {
        let mut session = open(&server, &key.sign(&claims(subject, "hash notes")));
        assert_eq!(
            session.call_value("notes", json!({})),
            json!([format!("{subject}'s note 1"), format!("{subject}'s note 2")]),
            "{subject}"
        );
    }
}

#[test]
fn a_subjects_client_rate_limit_holds_across_its_sessions_and_stateless_requests() {
    let key = SigningKey::new("k1");
    let jwks = Jwks::serve(&[&key]);
    let policy = policy_at(&jwks.uri(), "30s", "") + "\n[defaults]\nclient_rate_limit = 3\n";
    let (_dir, plugins, config) = crate::common::plugins_with_policy(
        &[test_artifacts::ENCODING, test_artifacts::FNV],
        &policy,
    );
    let token = |subject| key.sign(&claims(subject, "hash"));
    let hash = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "fnv.hash", "arguments": {"text": "a"}}});
    let refused = |reply: &Value| {
        let text = reply["result"]["content"][0]["text"].as_str().unwrap_or("");
        match reply["result"]["isError"].as_bool() {
            Some(false) => false,
            Some(true) if text.contains("`client_rate_limit`") => true,
            _ => panic!("{reply}"),
        }
    };

    // Sessions: Alice's two share her 3 calls; Bob has his own.
    let server = HttpServer::start(&plugins, &["--no-watch", "--config", &config]);
    let (mut first, mut second) = (
        open(&server, &token("alice")),
        open(&server, &token("alice")),
    );
    let mut sessions = [&mut first, &mut second];
    let seen: Vec<bool> = [0, 0, 1, 1]
        .into_iter()
        .map(|i| refused(&sessions[i].post(&hash).message()))
        .collect();
    assert_eq!(seen, [false, false, false, true], "{}", server.stderr());
    assert!(!refused(
        &open(&server, &token("bob")).post(&hash).message()
    ));
    drop(server);

    // Stateless: each request carries no session, but Alice is Alice.
    let server = HttpServer::start(
        &plugins,
        &["--no-watch", "--config", &config, "--stateless"],
    );
    let call = |subject| {
        refused(
            &bearer(&server.url, Some(&token(subject)))
                .post(&hash)
                .message(),
        )
    };
    let seen: Vec<bool> = (0..4).map(|_| call("alice")).collect();
    assert_eq!(seen, [false, false, false, true], "{}", server.stderr());
    assert!(!call("bob"), "Bob has his own quota");
}
