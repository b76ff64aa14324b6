//! A process with less address space than the instance pool reserves (a
//! `ulimit -v`, an arm64 kernel with 39-bit addresses, qemu-user) still
//! starts and serves: the engine allocates each call's instance on demand
//! and the log says why and what to change. The limit is a real
//! `RLIMIT_AS`, set by the shell that execs the server.
#![allow(clippy::unwrap_used)]

use serde_json::json;

use crate::common::{Server, plugin_dir, text};

/// 64 GiB: room for the server and for calls' instances allocated on
/// demand, but not for the pool of the default `--max-instances` (256
/// instances, four memories each, about 4 GiB of address space per memory:
/// 4.4 TiB).
const LIMIT_KIB: &str = "67108864";

/// `sh -c 'ulimit -v LIMIT; exec "$0" "$@"'`: the server's command line
/// runs with its address space limited.
const UNDER_LIMIT: [&str; 3] = ["sh", "-c", r#"ulimit -v "$LIMIT" && exec "$0" "$@""#];

const WARNING: &str = "cannot reserve its address space";

fn serve(args: &[&str]) -> (Server, tempfile::TempDir) {
    let plugins = plugin_dir(&[test_artifacts::TEXT]);
    let server = Server::start_under(&UNDER_LIMIT, plugins.path(), args, &[("LIMIT", LIMIT_KIB)]);
    (server, plugins)
}

fn serves_a_call(server: &mut Server) {
    server.initialize(crate::common::revision::R4);
    let result = server.call_ok("text_stats", json!({"text": "one two two"}));
    assert!(text(&result).contains("\"words\":3"), "{result}");
}

#[test]
fn a_pool_larger_than_the_address_space_falls_back_to_instances_on_demand() {
    let (mut server, _plugins) = serve(&[]);
    serves_a_call(&mut server);
    // Twice in a row: an instance allocated on demand is freed after its call.
    serves_a_call_again(&mut server);
    server.wait_for_stderr(WARNING);
    let log = server.stderr();
    assert!(log.contains("--max-instances 256"), "{log}");
    assert!(log.contains("ulimit -v"), "{log}");
    assert!(!log.contains("panicked"), "{log}");
}

fn serves_a_call_again(server: &mut Server) {
    let result = server.call_ok("text_stats", json!({"text": "a b"}));
    assert!(text(&result).contains("\"words\":2"), "{result}");
}

/// The warning's advice works: a pool small enough for the limit is kept,
/// and nothing is said.
#[test]
fn a_pool_that_fits_the_address_space_is_kept_without_a_warning() {
    let (mut server, _plugins) = serve(&["--max-instances", "2"]);
    serves_a_call(&mut server);
    // The engine is built before the plugins load: once the load's line
    // has been read, a warning would have been read before it.
    server.wait_for_stderr("plugins loaded");
    let log = server.stderr();
    assert!(!log.contains(WARNING), "{log}");
}
