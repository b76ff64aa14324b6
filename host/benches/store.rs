//! What the shared state store costs, and what replicas behind nginx add
//! (issue 46), in one run against the real binary over Streamable HTTP
//! (`serve --http --stateless`), 16 clients each with one request in
//! flight.
//!
//! 1. Three operations, each against three servers: no `[server] store`
//!    (the baseline), `store = "embedded"`, and a Redis store (one real
//!    redis-server): a plain call (`fnv`'s `hash`, no limit); the same call
//!    under a `rate_limit` high enough never to refuse (counted in the
//!    process, or in Redis with a Redis store); and a task (a 2026-07-28
//!    `tools/call` of the conformance plugin's `slow_compute` working
//!    5 ms, a task at once as `task_sync_window = "0s"` says) followed by
//!    one `tasks/get` of it. Each row gives p50, p99 and
//!    operations per second, and the ratios to the same operation with no
//!    store. The cases run interleaved (every server is up throughout).
//! 2. The plain call with a Redis store through one replica alone, one
//!    replica behind nginx, and three replicas behind nginx (round robin,
//!    no affinity), nginx keeping connections to the replicas alive; and
//!    three replicas behind nginx as the tests configure it (a new
//!    connection to a replica per request). For each, the cores used by the
//!    replicas, nginx, redis-server, this process (the load client) and the
//!    whole machine during the counted time, from `/proc`: what bounds the
//!    rate.
//!
//! redis-server and nginx are the tests' (`host/tests/all/common`,
//! included by `common::cluster`): run with
//! `MCP_WASM_HOST_REDIS=$(scripts/setup-redis.sh)
//! MCP_WASM_HOST_NGINX=$(scripts/setup-nginx.sh) cargo bench -p
//! mcp-wasm-host --bench store`: each case for 3 s after a warm-up, in 3
//! interleaved rounds, each figure the median of its rounds (`-- --quick`:
//! 1 s, one round). The clients share the machine's cores with the
//! servers.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::cluster::{self, NGINX, Nginx, REDIS, Redis};
use common::{Measured, Server, Session, load};
use serde_json::json;

/// Requests in flight: one per client.
const CLIENTS: usize = 16;

/// A `rate_limit` (calls per minute) that this machine never reaches.
const NEVER_REFUSES: u64 = 100_000_000;

/// The `[server]` keys every server here shares: calls that may be tasks
/// are tasks at once, and tasks never fill the bounds during a run.
const SERVER: &str = "task_sync_window = \"0s\"\nmax_tasks = 1000000\ntask_result_ttl = \"1m\"";

/// The extension a 2026-07-28 client declares to get tasks.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// One measured operation: what a worker's client is, and what it does.
#[derive(Clone, Copy, PartialEq)]
enum Op {
    Plain,
    Limited,
    Task,
}

impl Op {
    fn label(self) -> &'static str {
        match self {
            Op::Plain => "plain call",
            Op::Limited => "rate-limited call",
            Op::Task => "task create + tasks/get",
        }
    }
}

/// Repeats `op` against `url` with [`CLIENTS`] clients for `duration`;
/// `sample` gives the counters read around the counted time.
fn measure(
    url: &str,
    op: Op,
    duration: Duration,
    sample: &(dyn Fn() -> Vec<f64> + Sync),
) -> Measured {
    let hash = json!({"name": "hash", "arguments": {"text": "the store's cost"}});
    match op {
        Op::Plain | Op::Limited => load(
            CLIENTS,
            duration,
            || Session::open(url),
            |session| {
                session.request("tools/call", hash.clone());
            },
            sample,
        ),
        Op::Task => load(CLIENTS, duration, || Session::stateless(url), task, sample),
    }
}

/// Makes a task of `slow_compute` (5 ms, so that it outlasts the zero
/// sync window) and reads it once.
fn task(session: &mut Session) {
    let capabilities = json!({"extensions": {TASKS: {}}});
    let made = session.request_r5(
        "tools/call",
        json!({"name": "slow_compute", "arguments": {"seconds": 0, "millis": 5}}),
        capabilities.clone(),
    );
    assert_eq!(made["result"]["resultType"], "task", "not a task: {made}");
    let id = made["result"]["taskId"].as_str().unwrap().to_string();
    let read = session.request_r5("tasks/get", json!({"taskId": id}), capabilities);
    assert!(read["result"]["status"].is_string(), "{read}");
}

/// Starts `serve --http --stateless` on `plugins` under `[server]` keys
/// `store` and the rest of the policy `policy`, its state under `dir`.
fn serve(dir: &Path, plugins: &[&str], store: &str, policy: &str) -> Server {
    let state = dir.join("state");
    let policy = format!("[server]\n{store}\n{SERVER}\n\n[defaults]\nrate_limit = 0\n\n{policy}");
    let server = common::start(
        dir,
        plugins,
        &policy,
        &["--stateless", "--state-dir", state.to_str().unwrap()],
    );
    // Ready once its first load is done (a plugin compiled, or taken
    // from the compile cache).
    let readyz = server.url.replace("/mcp", "/readyz");
    cluster::eventually(
        cluster::DEADLINE,
        || format!("{readyz} never answered 200"),
        || ureq::get(&readyz).call().ok().filter(|r| r.status() == 200),
    );
    server
}

/// Each figure's median over rounds (separately: the figures of one row
/// may come from different rounds).
fn median(rounds: Vec<Measured>) -> Measured {
    fn mid<T: Copy + PartialOrd>(mut v: Vec<T>) -> T {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    }
    let counters = rounds[0].used.len();
    Measured {
        rate: mid(rounds.iter().map(|m| m.rate).collect()),
        p50: mid(rounds.iter().map(|m| m.p50).collect()),
        p99: mid(rounds.iter().map(|m| m.p99).collect()),
        used: (0..counters)
            .map(|i| mid(rounds.iter().map(|m| m.used[i]).collect()))
            .collect(),
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// The store's cost: every operation in every setting, interleaved.
fn store_cost(redis: &Redis, duration: Duration, rounds: usize) {
    let redis_store = format!("store = {{ redis = \"{}\" }}", redis.url());
    let settings = [
        ("no store", String::new()),
        ("embedded", "store = \"embedded\"".to_string()),
        ("redis", redis_store),
    ];
    let limited = format!("[plugins.fnv]\nrate_limit = {NEVER_REFUSES}\n");
    let plugins = [test_artifacts::FNV, test_artifacts::CONFORMANCE];
    // Per setting: a server with no limit (plain calls and tasks) and one
    // with the limit.
    let dirs: Vec<_> = (0..settings.len() * 2)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let servers: Vec<(Server, Server)> = settings
        .iter()
        .enumerate()
        .map(|(i, (_, store))| {
            (
                serve(dirs[2 * i].path(), &plugins, store, ""),
                serve(dirs[2 * i + 1].path(), &plugins, store, &limited),
            )
        })
        .collect();
    let redis_pid = redis.pid().unwrap();
    println!(
        "\n1. The store's cost: {CLIENTS} in flight, `serve --http --stateless`, {} s per case, \
         the median of {rounds} interleaved rounds",
        duration.as_secs()
    );
    println!(
        "{:<24} {:<9} {:>9} {:>9} {:>8} {:>7} {:>8}   {:>6} {:>6} {:>6} {:>7}",
        "operation",
        "store",
        "p50 µs",
        "p99 µs",
        "ops/s",
        "p50 ×",
        "ops/s ×",
        "server",
        "redis",
        "client",
        "machine"
    );
    let ops = [Op::Plain, Op::Limited, Op::Task];
    let cases: Vec<(Op, usize)> = ops
        .iter()
        .flat_map(|&op| (0..settings.len()).map(move |i| (op, i)))
        .collect();
    let mut rounds_of: Vec<Vec<Measured>> = cases.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (k, &(op, i)) in cases.iter().enumerate() {
            let (calls, limits) = &servers[i];
            let server = if op == Op::Limited { limits } else { calls };
            let pid = server.pid();
            let sample = move || {
                vec![
                    cluster::cpu_seconds(pid),
                    cluster::cpu_seconds(redis_pid),
                    cluster::own_cpu_seconds(std::process::id()),
                    cluster::machine_busy_seconds(),
                ]
            };
            rounds_of[k].push(measure(&server.url, op, duration, &sample));
        }
    }
    let mut baseline = (0.0, 0.0);
    for (&(op, i), measured) in cases.iter().zip(rounds_of) {
        let m = median(measured);
        let (p50, rate) = (us(m.p50), m.rate);
        if i == 0 {
            baseline = (p50, rate);
        }
        println!(
            "{:<24} {:<9} {:>9.0} {:>9.0} {:>8.0} {:>6.2}× {:>7.2}×   {:>6.2} {:>6.2} {:>6.2} {:>7.2}",
            op.label(),
            settings[i].0,
            p50,
            us(m.p99),
            rate,
            p50 / baseline.0,
            rate / baseline.1,
            m.used[0],
            m.used[1],
            m.used[2],
            m.used[3],
        );
    }
    println!(
        "(the last four columns: cores used during the counted time by the server, \
         redis-server, this load client, and the whole machine of {} cores)",
        cluster::cores()
    );
}

/// Calls per second through one replica, and through nginx in front of
/// one and of three, all with the Redis store.
fn replicas(redis: &Redis, nginx_bin: &Path, duration: Duration, rounds: usize) {
    let store = format!("store = {{ redis = \"{}\" }}", redis.url());
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let replicas: Vec<Server> = dirs
        .iter()
        .map(|d| serve(d.path(), &[test_artifacts::FNV], &store, ""))
        .collect();
    let authorities: Vec<String> = replicas
        .iter()
        .map(|r| {
            r.url
                .trim_start_matches("http://")
                .split('/')
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    println!(
        "\n2. Replicas with a Redis store: plain calls, {CLIENTS} in flight, {} s per case, \
         the median of {rounds} interleaved rounds",
        duration.as_secs()
    );
    println!(
        "{:<46} {:>8} {:>8} {:>7}   {:>8} {:>6} {:>6} {:>6} {:>7} {:>6}",
        "through",
        "calls/s",
        "p50 µs",
        "×1",
        "replicas",
        "nginx",
        "redis",
        "client",
        "machine",
        "other"
    );
    let redis_pid = redis.pid().unwrap();
    let cases: [(&str, usize, Option<bool>); 4] = [
        ("one replica, direct", 1, None),
        ("nginx, one replica (keepalive)", 1, Some(true)),
        ("nginx, three replicas (keepalive)", 3, Some(true)),
        (
            "nginx, three replicas (the tests' nginx.conf)",
            3,
            Some(false),
        ),
    ];
    let nginxes: Vec<Option<Nginx>> = cases
        .iter()
        .map(|&(_, count, keepalive)| {
            keepalive.map(|k| Nginx::start_with(nginx_bin, &authorities[..count], k))
        })
        .collect();
    let mut rounds_of: Vec<Vec<Measured>> = cases.iter().map(|_| Vec::new()).collect();
    for _ in 0..rounds {
        for (k, (&(_, count, _), nginx)) in cases.iter().zip(&nginxes).enumerate() {
            let url = nginx
                .as_ref()
                .map_or_else(|| replicas[0].url.clone(), Nginx::url);
            let pids: Vec<u32> = replicas[..count].iter().map(Server::pid).collect();
            let nginx_pid = nginx.as_ref().map(Nginx::pid);
            let sample = move || {
                vec![
                    pids.iter().map(|&p| cluster::cpu_seconds(p)).sum(),
                    nginx_pid.map_or(0.0, cluster::cpu_seconds),
                    cluster::cpu_seconds(redis_pid),
                    cluster::own_cpu_seconds(std::process::id()),
                    cluster::machine_busy_seconds(),
                ]
            };
            rounds_of[k].push(measure(&url, Op::Plain, duration, &sample));
        }
    }
    let mut one = 0.0;
    for ((label, _, _), measured) in cases.iter().zip(rounds_of) {
        let m = median(measured);
        if one == 0.0 {
            one = m.rate;
        }
        let ours: f64 = m.used[..4].iter().sum();
        println!(
            "{label:<46} {:>8.0} {:>8.0} {:>6.2}×   {:>8.2} {:>6.2} {:>6.2} {:>6.2} {:>7.2} {:>6.2}",
            m.rate,
            us(m.p50),
            m.rate / one,
            m.used[0],
            m.used[1],
            m.used[2],
            m.used[3],
            m.used[4],
            (m.used[4] - ours).max(0.0),
        );
    }
    println!(
        "(cores used during the counted time; \"other\": the machine's busy cores that \
         none of these processes used, on {} cores)",
        cluster::cores()
    );
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let duration = Duration::from_secs(if quick { 1 } else { 3 });
    let rounds = if quick { 1 } else { 3 };
    let redis_bin = cluster::required(&REDIS);
    let nginx_bin = cluster::required(&NGINX);
    let redis = Redis::start().unwrap_or_else(|| panic!("cannot start {}", redis_bin.display()));
    println!("mcp-wasm-host: what the shared store and replicas cost (issue 46)");
    store_cost(&redis, duration, rounds);
    replicas(&redis, &nginx_bin, duration, rounds);
}
