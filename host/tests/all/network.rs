//! Outbound network access against the real binary and a real web server on
//! 127.0.0.1 (`crate::common::web`): the HTTP allow-list (origins, methods,
//! internal addresses), its limits (bodies, requests per call, slow servers),
//! redirects checked hop by hop, the `fetch` and `github` example plugins,
//! credential injection and exposed secrets, redaction, and the TCP connect
//! allow-list. The `netprobe` test plugin reports what the guest sees.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use crate::common::web::{self, WebServer};
use crate::common::{Server, text};
use serde_json::{Value, json};

const TOKEN: &str = "ghp_TestTokenThatMustNeverBeSeen_0123456789";
const EXPOSED: &str = "exposed-value-4f8a1c9e2b7d";

/// A server with `plugins` (name and component) under the given policy and
/// extra environment; the directory lives as long as the server.
struct Host {
    server: Server,
    _dir: tempfile::TempDir,
}

impl std::ops::Deref for Host {
    type Target = Server;
    fn deref(&self) -> &Server {
        &self.server
    }
}

impl std::ops::DerefMut for Host {
    fn deref_mut(&mut self) -> &mut Server {
        &mut self.server
    }
}

fn host(plugins: &[(&str, &str)], policy: &str, env: &[(&str, &str)]) -> Host {
    let dir = tempfile::tempdir().unwrap();
    let plugin_dir = dir.path().join("plugins");
    std::fs::create_dir(&plugin_dir).unwrap();
    for (name, component) in plugins {
        std::fs::copy(component, plugin_dir.join(format!("{name}.wasm"))).unwrap();
    }
    let config = dir.path().join("mcp-wasm-host.toml");
    std::fs::write(&config, policy).unwrap();
    let mut server =
        Server::start_with_env(&plugin_dir, &["--config", config.to_str().unwrap()], env);
    let init = server.initialize(R4);
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    Host { server, _dir: dir }
}

/// A server with the `netprobe` plugin alone.
fn probe(policy: &str) -> Host {
    host(&[("netprobe", test_artifacts::NETPROBE)], policy, &[])
}

/// A `[plugins.NAME.http]` section allowing `web`'s origin, plus `extra`
/// keys.
fn allowing(name: &str, web: &WebServer, extra: &str) -> String {
    format!(
        "[plugins.{name}.http]\nallow = [\"{}\"]\n{extra}",
        web.origin()
    )
}

/// `netprobe.request` with a GET of `url`.
fn get(url: &str) -> Value {
    json!({"method": "GET", "url": url})
}

fn structured(result: &Value) -> &Value {
    result
        .get("structuredContent")
        .unwrap_or_else(|| panic!("no structured content in {result}"))
}

#[test]
fn an_allowed_origin_is_reached_and_its_answer_comes_back() {
    let web = WebServer::start();
    let mut s = probe(&allowing("netprobe", &web, ""));
    let result = s.call_ok("request", get(&web.url("/text")));
    let reply = structured(&result);
    assert_eq!(reply["status"], 200, "{reply}");
    assert_eq!(reply["body"], web::TEXT, "{reply}");
    assert_eq!(web.requests_to("/text").len(), 1);

    // The audit names the request, not its query string.
    s.call_ok("request", get(&web.url("/echo?q=private-query-value")));
    assert_eq!(web.requests_to("/echo").len(), 1);
    assert!(
        !s.stderr().contains("private-query-value"),
        "{}",
        s.stderr()
    );
}

#[test]
fn a_host_not_on_the_allow_list_is_denied_before_anything_is_sent() {
    let allowed = WebServer::start();
    let other = WebServer::start();
    let mut s = probe(&allowing("netprobe", &allowed, ""));
    let msg = s.call_err("request", get(&other.url("/text")));
    assert!(msg.contains("HTTP-request-denied"), "{msg}");
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    s.wait_for_stderr("plugins.netprobe.http.allow");
    // The allowed one still works in the same server.
    s.call_ok("request", get(&allowed.url("/text")));
}

#[test]
fn a_method_not_on_the_list_is_denied_and_never_sent() {
    let web = WebServer::start();
    let mut s = probe(&allowing("netprobe", &web, "methods = [\"GET\"]\n"));
    let msg = s.call_err(
        "request",
        json!({"method": "POST", "url": web.url("/echo"), "body": "x"}),
    );
    assert!(msg.contains("HTTP-request-denied"), "{msg}");
    assert!(web.requests().is_empty(), "{:?}", web.requests());
    s.wait_for_stderr("plugins.netprobe.http.methods");
    let result = s.call_ok("request", get(&web.url("/echo")));
    assert_eq!(structured(&result)["status"], 200);
}

#[test]
fn a_redirect_is_followed_by_the_guest_and_a_denied_hop_is_never_reached() {
    let allowed = WebServer::start();
    let other = WebServer::start();
    let mut s = host(
        &[("fetch", test_artifacts::FETCH)],
        &allowing("fetch", &allowed, ""),
        &[],
    );
    let to_allowed = allowed.url(&format!("/redirect?to={}", allowed.url("/text")));
    let out = text(&s.call_ok("fetch", json!({"url": to_allowed})));
    assert!(out.contains(web::TEXT.trim()), "{out}");

    let to_other = allowed.url(&format!("/redirect?to={}", other.url("/text")));
    let msg = s.call_err("fetch", json!({"url": to_other}));
    assert!(
        msg.contains("HTTP-request-denied") && msg.contains("after 1 redirect"),
        "{msg}"
    );
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    assert_eq!(allowed.requests_to("/redirect").len(), 2);
}

#[test]
fn a_name_resolving_to_loopback_is_denied_unless_the_address_is_granted() {
    let web = WebServer::start();
    let origin = format!("http://localhost:{}", web.port);
    let mut s = host(
        &[
            ("byname", test_artifacts::NETPROBE),
            ("granted", test_artifacts::NETPROBE),
        ],
        &format!(
            "[plugins.byname.http]\nallow = [\"{origin}\"]\n\n\
             [plugins.granted.http]\nallow = [\"{origin}\"]\nallow_addresses = [\"127.0.0.1\", \"::1\"]\n"
        ),
        &[],
    );
    let msg = s.call_err("byname.request", get(&web.localhost_url("/text")));
    assert!(msg.contains("HTTP-request-denied"), "{msg}");
    assert!(web.requests().is_empty(), "{:?}", web.requests());
    s.wait_for_stderr("plugins.byname.http.allow_addresses");

    let result = s.call_ok("granted.request", get(&web.localhost_url("/text")));
    assert_eq!(structured(&result)["body"], web::TEXT);
    assert_eq!(web.requests_to("/text").len(), 1);
}

#[test]
fn bodies_over_their_limits_fail_with_wasi_http_size_errors() {
    let web = WebServer::start();
    let mut s = probe(&allowing(
        "netprobe",
        &web,
        "max_request_body = \"1 KiB\"\nmax_response_body = \"4 KiB\"\n",
    ));
    let msg = s.call_err(
        "request",
        json!({"method": "POST", "url": web.url("/echo"), "body": "y".repeat(2048)}),
    );
    assert!(msg.contains("HTTP-request-body-size"), "{msg}");
    // The body stream's error carries its `error-code` (the host's
    // `http-error-code` recognises wasmtime-wasi-http's body error).
    let msg = s.call_err("request", get(&web.url("/big?bytes=100000")));
    assert!(msg.contains("failed: HTTP-response-body-size"), "{msg}");

    // Under both limits, the same requests go through.
    let result = s.call_ok(
        "request",
        json!({"method": "POST", "url": web.url("/echo"), "body": "y".repeat(512)}),
    );
    let echoed: Value =
        serde_json::from_str(structured(&result)["body"].as_str().unwrap()).unwrap();
    assert_eq!(echoed["body_length"], 512);
    let result = s.call_ok("request", get(&web.url("/big?bytes=4000")));
    assert_eq!(structured(&result)["body"].as_str().unwrap().len(), 4000);
}

#[test]
fn requests_past_the_per_call_count_are_denied_and_the_next_call_starts_afresh() {
    let web = WebServer::start();
    let mut s = probe(&allowing("netprobe", &web, "max_requests = 3\n"));
    let url = web.url("/text");
    let result = s.call_ok("requests", json!({"url": url, "count": 5}));
    let tally = structured(&result);
    assert_eq!(tally["succeeded"], 3, "{tally}");
    assert!(
        tally["first_error"]
            .as_str()
            .unwrap()
            .starts_with("HTTP-request-denied"),
        "{tally}"
    );
    assert_eq!(web.requests_to("/text").len(), 3);
    s.wait_for_stderr("max_requests");

    let result = s.call_ok("requests", json!({"url": url, "count": 3}));
    assert_eq!(structured(&result)["succeeded"], 3);
    assert_eq!(web.requests_to("/text").len(), 6);
}

#[test]
fn a_slow_server_is_cut_off_at_the_call_deadline_and_the_server_stays_responsive() {
    let web = WebServer::start();
    let mut s = probe(&format!(
        "[plugins.netprobe]\ntimeout = \"2s\"\n\n{}",
        allowing("netprobe", &web, "")
    ));
    let msg = s.call_err("request", get(&web.url("/slow")));
    // Either the deadline stops the guest, or the host ends the request at
    // the deadline and the guest reports it: both name the timeout.
    assert!(
        msg.contains("timed out after 2 s") || msg.contains("connection-timeout"),
        "{msg}"
    );
    assert_eq!(web.requests_to("/slow").len(), 1);
    let result = s.call_ok("request", get(&web.url("/text")));
    assert_eq!(structured(&result)["status"], 200);
}

#[test]
fn a_slow_server_is_cut_off_at_the_first_byte_timeout_inside_a_longer_deadline() {
    let web = WebServer::start();
    let mut s = probe(&format!(
        "[plugins.netprobe]\ntimeout = \"60s\"\n\n{}",
        allowing("netprobe", &web, "first_byte_timeout = \"1s\"\n")
    ));
    // The guest itself gets a wasi:http timeout error: the call did not
    // time out.
    let msg = s.call_err("request", get(&web.url("/slow")));
    assert!(
        msg.contains("-timeout") && !msg.contains("timed out after"),
        "{msg}"
    );
}

/// The Markdown of `fetch` answers: the text after the `Contents of` line,
/// without the truncation note, and the `start_index` the note names.
fn fetched_part(answer: &str) -> (String, Option<usize>) {
    let body = answer.split_once(":\n").map_or(answer, |(_, b)| b);
    match body.split_once("\n\n<error>Content truncated") {
        Some((part, note)) => {
            let next = note
                .split("start_index=")
                .nth(1)
                .and_then(|n| n.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|n| n.parse().ok());
            (part.to_string(), next)
        }
        None => (body.to_string(), None),
    }
}

#[test]
fn fetch_returns_a_page_as_markdown_without_scripts_and_in_parts() {
    let web = WebServer::start();
    let mut s = host(
        &[("fetch", test_artifacts::FETCH)],
        &allowing("fetch", &web, ""),
        &[],
    );
    let url = web.url("/page");
    let whole = text(&s.call_ok("fetch", json!({"url": url})));
    for expected in [
        "# Main heading",
        "## Second heading",
        "[docs](https://example.com/docs)",
        "first item",
        "The end of the page.",
    ] {
        assert!(
            whole.contains(expected),
            "{expected:?} missing from {whole}"
        );
    }
    for dropped in ["SECRET_SCRIPT_TEXT", "SECRET_STYLE_TEXT", "<h1>"] {
        assert!(!whole.contains(dropped), "{dropped:?} in {whole}");
    }
    let (markdown, next) = fetched_part(&whole);
    assert_eq!(next, None, "{whole}");

    // Read in parts of 40 characters, the parts add up to the whole.
    let mut joined = String::new();
    let mut start = 0;
    let mut parts = 0;
    loop {
        let answer = text(&s.call_ok(
            "fetch",
            json!({"url": url, "max_length": 40, "start_index": start}),
        ));
        let (part, next) = fetched_part(&answer);
        assert!(part.chars().count() <= 40, "{answer}");
        joined.push_str(&part);
        parts += 1;
        match next {
            Some(n) => start = n,
            None => break,
        }
        assert!(parts < 100, "pagination does not end");
    }
    assert!(parts > 1);
    assert_eq!(joined, markdown);

    let raw = text(&s.call_ok("fetch", json!({"url": url, "raw": true})));
    assert!(raw.contains("<h1>Main heading</h1>"), "{raw}");
}

/// A policy where `github` and the probe `ghprobe` get the token injected
/// into requests to `web`, and `ghprobe` may also reach `other`.
fn github_policy(web: &WebServer, other: &WebServer) -> String {
    let origin = web.origin();
    let other = other.origin();
    format!(
        r#"
[plugins.github]
env = {{ GITHUB_API_URL = "{origin}" }}
[plugins.github.http]
allow = ["{origin}"]
[plugins.github.secrets.GITHUB_TOKEN]
env = "TEST_GITHUB_TOKEN"
origin = "{origin}"
header = "Authorization"
value = "Bearer {{secret}}"

[plugins.ghprobe.http]
allow = ["{origin}", "{other}"]
[plugins.ghprobe.secrets.GITHUB_TOKEN]
env = "TEST_GITHUB_TOKEN"
origin = "{origin}"
header = "Authorization"
value = "Bearer {{secret}}"
"#
    )
}

#[test]
fn github_issues_are_created_and_listed_with_a_token_the_guest_never_sees() {
    let web = WebServer::with_token(TOKEN);
    let other = WebServer::start();
    let mut s = host(
        &[
            ("github", test_artifacts::GITHUB),
            ("ghprobe", test_artifacts::NETPROBE),
        ],
        &github_policy(&web, &other),
        &[("TEST_GITHUB_TOKEN", TOKEN)],
    );
    let mut answers = Vec::new();

    let created = s.call_ok(
        "create_issue",
        json!({"owner": "octo", "repo": "demo", "title": "First", "body": "It broke."}),
    );
    let issue = structured(&created);
    assert_eq!(issue["number"], 1, "{issue}");
    assert_eq!(issue["title"], "First");
    assert_eq!(issue["state"], "open");
    assert_eq!(issue["url"], "https://github.com/octo/demo/issues/1");
    answers.push(created.clone());

    let listed = s.call_ok("list_issues", json!({"owner": "octo", "repo": "demo"}));
    let issues = structured(&listed)["issues"].as_array().unwrap().clone();
    assert_eq!(issues.len(), 1, "{listed}");
    assert_eq!(issues[0]["title"], "First");
    answers.push(listed.clone());

    let arrived = web.requests_to("/repos/octo/demo/issues");
    assert_eq!(arrived.len(), 2);
    for r in &arrived {
        assert_eq!(
            r.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str())
        );
        assert_eq!(r.header("user-agent"), Some("mcp-wasm-host-github"));
        assert_eq!(r.header("accept"), Some("application/vnd.github+json"));
    }

    // The guest's environment holds no token.
    let env = s.call_ok("env", json!({}));
    assert!(!env.to_string().contains(TOKEN), "{env}");
    answers.push(env.clone());

    // A guest's own Authorization for that origin is replaced by the
    // host's; the token is not sent to another origin.
    let own = s.call_ok(
        "request",
        json!({"method": "GET", "url": web.url("/repos/octo/demo/issues"),
               "headers": [["Authorization", "Bearer guessed"]]}),
    );
    assert_eq!(structured(&own)["status"], 200, "{own}");
    answers.push(own.clone());
    let elsewhere = s.call_ok("request", get(&other.url("/echo")));
    let echoed: Value =
        serde_json::from_str(structured(&elsewhere)["body"].as_str().unwrap()).unwrap();
    assert!(echoed["headers"].get("authorization").is_none(), "{echoed}");
    answers.push(elsewhere.clone());

    // Without the token, GitHub's message comes back as a tool error.
    let unauthorized = host(
        &[("github", test_artifacts::GITHUB)],
        &github_policy(&web, &other),
        &[("TEST_GITHUB_TOKEN", "not-the-token")],
    );
    let mut unauthorized = unauthorized;
    let msg = unauthorized.call_err("list_issues", json!({"owner": "octo", "repo": "demo"}));
    assert!(
        msg.contains("401") && msg.contains("Bad credentials"),
        "{msg}"
    );

    // The token is in no answer, no stdout line and no log line.
    for answer in &answers {
        assert!(!answer.to_string().contains(TOKEN), "{answer}");
    }
    for line in &s.raw {
        assert!(!line.contains(TOKEN), "stdout: {line}");
    }
    assert!(!s.stderr().contains(TOKEN), "stderr: {}", s.stderr());
}

#[test]
fn an_exposed_secret_is_in_the_guest_environment_and_redacted_from_its_output() {
    let mut s = host(
        &[("netprobe", test_artifacts::NETPROBE)],
        "[plugins.netprobe.secrets.API_KEY]\nenv = \"TEST_EXPOSED_SECRET\"\nexpose = true\n",
        &[("TEST_EXPOSED_SECRET", EXPOSED)],
    );
    // The guest holds it; the client sees `[redacted]` in its place, exactly
    // where the value was.
    let env = s.call_ok("env", json!({}));
    assert_eq!(structured(&env)["vars"]["API_KEY"], "[redacted]", "{env}");

    let printed = s.call_ok(
        "print",
        json!({"text": format!("the key is {EXPOSED} (do not tell)")}),
    );
    assert_eq!(text(&printed), "printed");
    // Each of stdout, stderr and the log message reaches the server log.
    s.wait_for_stderr("the key is [redacted] (do not tell)");
    let log = s.stderr();
    assert!(log.matches("[redacted]").count() >= 3, "{log}");
    assert!(!log.contains(EXPOSED), "{log}");
    for line in &s.raw {
        assert!(!line.contains(EXPOSED), "stdout: {line}");
    }
}

#[test]
fn tcp_connects_reach_only_the_listed_addresses() {
    let listed = WebServer::start();
    let unlisted = WebServer::start();
    let mut s = probe(&format!(
        "[plugins.netprobe.sockets]\nconnect = [\"127.0.0.1:{}\"]\n",
        listed.port
    ));
    let ok = s.call_ok("tcp", json!({"addr": format!("127.0.0.1:{}", listed.port)}));
    assert_eq!(text(&ok), "ok");
    let msg = s.call_err(
        "tcp",
        json!({"addr": format!("127.0.0.1:{}", unlisted.port)}),
    );
    assert!(msg.contains("access-denied"), "{msg}");
}

/// The paths the dot-segment table sends: `..` and `.` in every encoding
/// (plain, `%2e` in both cases, mixed, double-encoded, `%uXXXX`, overlong
/// UTF-8), after and before every separator form (`/`, `\`, `%2f`, `%5c`,
/// double-encoded, doubled), with `;` parameters and trailing spaces, in
/// the middle of a path and at its end.
fn dot_segment_paths() -> Vec<String> {
    const DOTS: &[&str] = &[
        "..",
        ".",
        "%2e%2e",
        "%2E%2E",
        ".%2e",
        "%2E.",
        "%2e",
        "%252e%252e",
        "%25252e.",
        "%u002e%u002e",
        "%%32%65%%32%65",
        "..;",
        "..;x=1",
        "..%3b",
        "..%20",
        "...",
        "%c0%ae%c0%ae",
    ];
    const SEPARATORS: &[&str] = &["/", "\\", "%2f", "%2F", "%5c", "%252f", "%255c", "//"];
    let mut out = Vec::new();
    for dots in DOTS {
        for sep in SEPARATORS {
            out.push(format!("/api{sep}{dots}{sep}admin"));
            out.push(format!("/api/x{sep}{dots}{sep}{dots}{sep}admin"));
            out.push(format!("/api{sep}{dots}"));
        }
    }
    out
}

/// `path` as a lenient server could act on it: decoded until it stops
/// changing (`%uXXXX` too), `\` read as `/`, `;` parameters and trailing
/// spaces dropped, then dot-segments removed.
fn lenient_server(path: &str) -> String {
    let mut text = path.to_string();
    loop {
        let mut next = String::new();
        let mut rest = text.as_str();
        while let Some(at) = rest.find('%') {
            next.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let wide = after
                .strip_prefix(['u', 'U'])
                .and_then(|h| h.get(..4))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .and_then(char::from_u32);
            let byte = after.get(..2).and_then(|h| u8::from_str_radix(h, 16).ok());
            match (wide, byte) {
                (Some(c), _) => {
                    next.push(c);
                    rest = &after[5..];
                }
                (None, Some(b)) => {
                    next.push(char::from(b));
                    rest = &after[2..];
                }
                (None, None) => {
                    next.push('%');
                    rest = after;
                }
            }
        }
        next.push_str(rest);
        if next == text {
            break;
        }
        text = next;
    }
    let mut kept: Vec<&str> = Vec::new();
    for segment in text.split(['/', '\\']).skip(1) {
        let segment = segment.split(';').next().unwrap_or_default();
        let bare = segment.trim_end();
        if !bare.is_empty() && bare.chars().all(|c| c == '.') {
            if bare.len() > 1 {
                kept.pop();
            }
            continue;
        }
        kept.push(segment);
    }
    format!("/{}", kept.join("/"))
}

fn inside_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

#[test]
fn an_allowed_path_prefix_is_never_climbed_out_of_in_any_encoding() {
    let web = WebServer::start();
    let authority = format!("127.0.0.1:{}", web.port);
    let mut s = probe(&format!(
        "[plugins.netprobe.http]\nallow = [\"{}/api\"]\n",
        web.origin()
    ));
    let table = dot_segment_paths();
    let escaping = table
        .iter()
        .filter(|p| !inside_api(&lenient_server(p)))
        .count();
    assert!(escaping > table.len() / 2, "{escaping} of {}", table.len());
    let mut denied_by_the_host = 0;
    for path in &table {
        let response = s.call("raw", json!({"authority": authority, "path": path}));
        let result = &response["result"];
        if result["isError"] == json!(true) {
            // wasi:http itself refused the path (not a valid URI path).
            let msg = text(result);
            assert!(msg.contains("refused by wasi:http"), "{path}: {msg}");
            continue;
        }
        let seen = structured(result);
        assert_eq!(seen["error_code"], "HTTP-request-denied", "{path}: {seen}");
        denied_by_the_host += 1;
    }
    assert!(
        denied_by_the_host > table.len() / 2,
        "{denied_by_the_host} of {}",
        table.len()
    );
    assert!(web.requests().is_empty(), "{:#?}", web.requests());
    s.wait_for_stderr("holds a dot-segment");

    // What stays inside the prefix still goes through, in normal form.
    for (path, received) in [
        ("/api", "/api"),
        ("/api/v1/items", "/api/v1/items"),
        ("/%61pi/%7Euser", "/api/~user"),
        ("/api//x", "/api//x"),
        ("/api/..x/y..", "/api/..x/y.."),
        ("/api/x?next=../../admin", "/api/x"),
    ] {
        let result = s.call_ok("raw", json!({"authority": authority, "path": path}));
        let seen = structured(&result);
        assert_eq!(seen["status"], 200, "{path}: {seen}");
        let body: Value = serde_json::from_str(seen["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["path"], received, "{path}");
    }
    // Outside the prefix by its segments: denied too.
    for path in ["/admin", "/apix", "/api%2fx", "/API/x", "/"] {
        let result = s.call_ok("raw", json!({"authority": authority, "path": path}));
        assert_eq!(
            structured(&result)["error_code"],
            "HTTP-request-denied",
            "{path}"
        );
    }
    // Every path the server received, however it reads it, is inside.
    let received = web.requests();
    assert_eq!(received.len(), 6, "{received:#?}");
    for r in received {
        assert!(inside_api(&lenient_server(&r.path)), "{}", r.path);
    }
}

/// A generic component (plain WIT, no SDK) gets the same explanation of a
/// denial as an SDK plugin, in its error result: the client sees which key
/// would grant the request. Its denied request is audited with the same
/// `origin` and `path` fields as one sent.
#[test]
fn a_generic_components_denied_request_is_explained_and_audited_like_any_other() {
    let allowed = WebServer::start();
    let other = WebServer::start();
    let mut s = host(
        &[("plainwit", test_artifacts::PLAINWIT)],
        &allowing("plainwit", &allowed, ""),
        &[],
    );
    let authority = |w: &WebServer| w.origin().trim_start_matches("http://").to_string();
    let ok = s.call_ok(
        "status",
        json!({"authority": authority(&allowed), "path": "/text"}),
    );
    assert_eq!(structured(&ok)["result"], 200, "{ok}");
    let denied = s.call(
        "status",
        json!({"authority": authority(&other), "path": "/text"}),
    );
    let result = &denied["result"];
    assert_eq!(result["isError"], true, "{denied}");
    let message = text(result);
    assert!(
        message.contains("HttpRequestDenied")
            && message.contains("is not on the allow-list")
            && message.contains("`plugins.plainwit.http.allow`"),
        "{message}"
    );
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    s.wait_for_stderr(&format!(
        "origin=\"{}\" path=\"/text\" outcome=\"denied\"",
        other.origin()
    ));
}
