//! Unit tests of `runtime::capabilities::http::outbound`.
//! The sender against real servers on 127.0.0.1: plain HTTP, and TLS
//! with a private CA given as `ca_file`.

use std::convert::Infallible;
use std::path::Path;

use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;

use super::super::super::secrets;
use super::super::HttpSpec;
use super::*;

/// What a server saw: method, path and headers of each request.
type Seen = Arc<Mutex<Vec<(String, String, http::HeaderMap)>>>;

/// Serves on 127.0.0.1 (over TLS with `tls`): `/big` answers 64 KiB,
/// everything else `hello`.
async fn serve(tls: Option<Arc<rustls::ServerConfig>>) -> (u16, Seen) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen: Seen = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (log, tls) = (log.clone(), tls.clone());
            tokio::spawn(async move {
                let service = service_fn(move |req: http::Request<hyper::body::Incoming>| {
                    let log = log.clone();
                    async move {
                        log.lock().unwrap().push((
                            req.method().to_string(),
                            req.uri().path().to_string(),
                            req.headers().clone(),
                        ));
                        let body = if req.uri().path() == "/big" {
                            Bytes::from(vec![b'x'; 64 << 10])
                        } else {
                            Bytes::from_static(b"hello")
                        };
                        Ok::<_, Infallible>(http::Response::new(Full::new(body)))
                    }
                });
                let http = hyper::server::conn::http1::Builder::new();
                match tls {
                    Some(config) => {
                        if let Ok(stream) =
                            tokio_rustls::TlsAcceptor::from(config).accept(tcp).await
                        {
                            let _ = http.serve_connection(TokioIo::new(stream), service).await;
                        }
                    }
                    None => {
                        let _ = http.serve_connection(TokioIo::new(tcp), service).await;
                    }
                }
            });
        }
    });
    (port, seen)
}

/// A private CA (written to `dir/ca.pem`) and a server configuration
/// whose certificate it issued for 127.0.0.1 and localhost.
fn private_ca(dir: &Path) -> Arc<rustls::ServerConfig> {
    use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    std::fs::write(dir.join("ca.pem"), ca.pem()).unwrap();
    let key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()])
        .unwrap()
        .signed_by(&key, &ca)
        .unwrap();
    let key = rustls::pki_types::PrivateKeyDer::try_from(key.serialize_der()).unwrap();
    Arc::new(
        rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone()], key)
        .unwrap(),
    )
}

fn outbound(http: &str, secrets_toml: &str, dir: &Path) -> Outbound {
    let spec: HttpSpec = toml::from_str(http).unwrap();
    spec.check(false).unwrap();
    let http = HttpSpec::resolve(&HttpSpec::default(), Some(&spec), dir).unwrap();
    let secrets_spec: secrets::SecretsSpec = toml::from_str(secrets_toml).unwrap();
    secrets::check(&secrets_spec).unwrap();
    let secrets = secrets::resolve(&secrets_spec, dir).unwrap();
    let grants = Grants {
        http,
        secrets,
        ..Grants::default()
    };
    Outbound::new(
        CallInfo {
            plugin: "p".into(),
            tool: "t".into(),
            section: "plugins.t".into(),
            config_file: "mcp-wasm-host.toml".into(),
            deadline: Instant::now() + Duration::from_secs(30),
        },
        Arc::new(grants),
    )
}

/// Sends one request; the status and body, or the error.
async fn send(out: &mut Outbound, method: &str, url: &str) -> Result<(u16, Bytes), Error> {
    let body = http_body_util::Empty::<Bytes>::new()
        .map_err(|never| match never {})
        .boxed_unsync();
    let request = http::Request::builder()
        .method(method)
        .uri(url)
        .header("authorization", "guest-chosen")
        .body(body)
        .unwrap();
    let (response, io) =
        Pin::from(out.send_request(request, None, Box::new(async { Ok(()) }))).await?;
    tokio::spawn(Pin::from(io));
    let status = response.status().as_u16();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}

fn private_file(dir: &Path, name: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[tokio::test]
async fn https_to_an_allowed_origin_carries_the_injected_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (port, seen) = serve(Some(private_ca(dir.path()))).await;
    private_file(dir.path(), "token", "s3cret-token-value\n");
    let origin = format!("https://127.0.0.1:{port}");
    let mut out = outbound(
        &format!("allow = [\"{origin}\"]\nca_file = \"ca.pem\"\n"),
        &format!(
            "TOKEN = {{ file = \"token\", origin = \"{origin}\", header = \"Authorization\", value = \"Bearer {{secret}}\" }}"
        ),
        dir.path(),
    );
    let (status, body) = send(&mut out, "GET", &format!("{origin}/x?q=1"))
        .await
        .unwrap();
    assert_eq!((status, &body[..]), (200, &b"hello"[..]));
    let seen = seen.lock().unwrap();
    let (method, path, headers) = &seen[0];
    assert_eq!((method.as_str(), path.as_str()), ("GET", "/x"));
    let auth: Vec<_> = headers.get_all("authorization").iter().collect();
    assert_eq!(
        auth,
        ["Bearer s3cret-token-value"],
        "the host's header replaces the guest's"
    );
}

#[tokio::test]
async fn https_without_the_private_ca_fails_the_handshake() {
    let dir = tempfile::tempdir().unwrap();
    let (port, seen) = serve(Some(private_ca(dir.path()))).await;
    let origin = format!("https://127.0.0.1:{port}");
    let mut out = outbound(&format!("allow = [\"{origin}\"]\n"), "", dir.path());
    let e = send(&mut out, "GET", &origin).await.unwrap_err();
    assert!(matches!(e, Error::Tls(_)), "{e:?}");
    assert!(seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn what_the_policy_does_not_grant_never_leaves_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let (port, seen) = serve(None).await;
    let allowed = format!("http://127.0.0.1:{port}");
    let mut out = outbound(
        &format!("allow = [\"{allowed}/api\"]\nmethods = [\"GET\"]\nmax_requests = 3\n"),
        "",
        dir.path(),
    );
    for (method, url, key) in [
        ("GET", format!("{allowed}/other"), "`plugins.t.http.allow`"),
        (
            "GET",
            format!("http://127.0.0.2:{port}/api"),
            "`plugins.t.http.allow`",
        ),
        ("POST", format!("{allowed}/api"), "`plugins.t.http.methods`"),
    ] {
        let e = send(&mut out, method, &url).await.unwrap_err();
        assert!(matches!(e, Error::HttpRequestDenied), "{url}: {e:?}");
        let denials = out.denials();
        assert!(denials.last().unwrap().contains(key), "{denials:?}");
    }
    // Denied requests count: the fourth is over max_requests.
    let e = send(&mut out, "GET", &format!("{allowed}/api"))
        .await
        .unwrap_err();
    assert!(matches!(e, Error::HttpRequestDenied));
    assert!(
        out.denials()
            .last()
            .unwrap()
            .contains("`plugins.t.http.max_requests`")
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "no denied request reached the server"
    );
    // A guest that keeps asking gets denied without a log line each.
    for _ in 0..100 {
        send(&mut out, "GET", &format!("{allowed}/api"))
            .await
            .unwrap_err();
    }
    assert_eq!(out.denials().len(), KEPT_DENIALS);
    assert_eq!(out.shared.unlogged.load(Ordering::Relaxed), 100);
}

#[tokio::test]
async fn a_path_is_judged_and_sent_in_normal_form() {
    let dir = tempfile::tempdir().unwrap();
    let (port, seen) = serve(None).await;
    let origin = format!("http://127.0.0.1:{port}");
    let mut out = outbound(
        &format!("allow = [\"{origin}/api\"]\nmax_requests = 100\n"),
        "",
        dir.path(),
    );
    for path in [
        "/api/%2e%2e/admin",
        "/api/..;/admin",
        "/api/x/..%2f..%2fadmin",
        "/api/%252e%252e/admin",
        "/api/..",
    ] {
        let e = send(&mut out, "GET", &format!("{origin}{path}"))
            .await
            .unwrap_err();
        assert!(matches!(e, Error::HttpRequestDenied), "{path}: {e:?}");
    }
    let denial = out.denials().remove(0);
    assert!(
        denial.contains("dot-segment") && denial.contains("no policy key grants it"),
        "{denial}"
    );
    assert!(seen.lock().unwrap().is_empty());
    let (status, _) = send(&mut out, "GET", &format!("{origin}/%61pi/x?q=%2e%2e"))
        .await
        .unwrap();
    assert_eq!(status, 200);
    assert_eq!(seen.lock().unwrap()[0].1, "/api/x");
}

#[tokio::test]
async fn a_name_that_resolves_to_loopback_needs_the_address_granted() {
    let dir = tempfile::tempdir().unwrap();
    let (port, seen) = serve(None).await;
    let url = format!("http://localhost:{port}/");
    let mut out = outbound(
        &format!("allow = [\"http://localhost:{port}\"]\n"),
        "",
        dir.path(),
    );
    let e = send(&mut out, "GET", &url).await.unwrap_err();
    assert!(matches!(e, Error::HttpRequestDenied), "{e:?}");
    let denial = out.denials().pop().unwrap();
    assert!(
        denial.contains("loopback") && denial.contains("`plugins.t.http.allow_addresses`"),
        "{denial}"
    );
    assert!(seen.lock().unwrap().is_empty());
    let mut out = outbound(
        &format!(
            "allow = [\"http://localhost:{port}\"]\nallow_addresses = [\"127.0.0.1\", \"::1\"]\n"
        ),
        "",
        dir.path(),
    );
    assert_eq!(send(&mut out, "GET", &url).await.unwrap().0, 200);
}

#[tokio::test]
async fn a_response_over_the_limit_fails_its_body() {
    let dir = tempfile::tempdir().unwrap();
    let (port, _) = serve(None).await;
    let origin = format!("http://127.0.0.1:{port}");
    let mut out = outbound(
        &format!("allow = [\"{origin}\"]\nmax_response_body = \"16 KiB\"\n"),
        "",
        dir.path(),
    );
    let e = send(&mut out, "GET", &format!("{origin}/big"))
        .await
        .unwrap_err();
    assert!(
        matches!(e, Error::HttpResponseBodySize(Some(n)) if n == 16 << 10),
        "{e:?}"
    );
    assert_eq!(send(&mut out, "GET", &origin).await.unwrap().0, 200);
}
