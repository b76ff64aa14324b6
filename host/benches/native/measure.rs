//! One round of each measure, the sides taking turns case by case: stdio
//! round trips and throughput, HTTP throughput, and starts.

use std::time::{Duration, Instant};

use crate::common::stdio::{StdioClient, first_call, request};
use crate::common::{process_memory, spawn_listening, throughput};
use crate::{LEVELS, Plan, Results, SIDES, Setup, Side, call_params, expected_hash, quantile};

/// Sequential calls per side before anything is timed.
const WARM_UP_CALLS: usize = 200;

/// Sequential calls in a row on one side before the other side's turn.
const BLOCK: usize = 100;

/// A server over stdio, past its handshake, calling `hash`.
pub struct Stdio {
    client: StdioClient,
    next: u64,
    params: serde_json::Value,
    expected: String,
}

impl Stdio {
    pub fn new(client: StdioClient) -> Stdio {
        Stdio {
            client,
            next: 0,
            params: call_params(),
            expected: expected_hash(),
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.client.pid()
    }

    fn next_request(&mut self) -> String {
        self.next += 1;
        request(self.next, "tools/call", &self.params)
    }

    /// Reads one answer and checks it is the right hash.
    fn answer(&mut self) {
        let line = self.client.recv();
        assert!(line.contains(&self.expected), "{line}");
    }

    /// One call, waiting for its answer: the round trip's time.
    pub fn call(&mut self) -> Duration {
        let message = self.next_request();
        let elapsed = self.client.round_trip(&message);
        assert!(
            self.client.line.contains(&self.expected),
            "{}",
            self.client.line
        );
        elapsed
    }

    /// Calls per second with `window` requests in flight (a new one sent as
    /// each answer arrives) for `duration`, after a warm-up of a quarter of
    /// it; the calls still in flight are then answered before it returns.
    pub fn rate(&mut self, window: usize, duration: Duration) -> f64 {
        let started = Instant::now();
        for _ in 1..window {
            let message = self.next_request();
            self.client.write(&message);
        }
        let message = self.next_request();
        self.client.send(&message);
        let mut in_flight = window;
        let mut counting: Option<(Instant, u64)> = None;
        let rate = loop {
            self.answer();
            in_flight -= 1;
            let now = Instant::now();
            match &mut counting {
                None if now - started >= duration / 4 => counting = Some((now, 0)),
                None => {}
                Some((since, answers)) => {
                    *answers += 1;
                    if now - *since >= duration {
                        break *answers as f64 / (now - *since).as_secs_f64();
                    }
                }
            }
            let message = self.next_request();
            self.client.send(&message);
            in_flight += 1;
        };
        for _ in 0..in_flight {
            self.answer();
        }
        rate
    }

    /// `count` calls with `window` requests in flight (a new one sent as
    /// each answer arrives), every answer checked.
    pub fn calls(&mut self, window: usize, count: u64) {
        let first = count.min(window as u64);
        for i in 0..first {
            let message = self.next_request();
            if i + 1 < first {
                self.client.write(&message);
            } else {
                self.client.send(&message);
            }
        }
        let (mut sent, mut answered) = (first, 0);
        while answered < sent {
            self.answer();
            answered += 1;
            if sent < count {
                let message = self.next_request();
                self.client.send(&message);
                sent += 1;
            }
        }
    }

    /// Closes stdin and waits for the server to exit.
    pub fn close(self) {
        self.client.close();
    }
}

/// Stdio: sequential round trips (in blocks, the sides taking turns), then
/// throughput at each level of requests in flight, then peak memory.
pub fn stdio_round(setup: &Setup, plan: &Plan, round: usize, results: &mut [Results; SIDES]) {
    let mut servers = Side::ALL.map(|side| setup.stdio(side));
    for server in &mut servers {
        for _ in 0..WARM_UP_CALLS {
            server.call();
        }
    }
    let mut samples: [Vec<f64>; SIDES] = Default::default();
    for block in 0..plan.calls.div_ceil(BLOCK) {
        for side in Side::order(round + block) {
            for _ in 0..BLOCK {
                let elapsed = servers[side as usize].call();
                samples[side as usize].push(elapsed.as_secs_f64() * 1e6);
            }
        }
    }
    for side in Side::ALL {
        let s = &mut samples[side as usize];
        s.sort_by(f64::total_cmp);
        let r = &mut results[side as usize];
        r.p50.push(quantile(s, 0.50));
        r.p99.push(quantile(s, 0.99));
        r.latency_us.extend_from_slice(s);
        println!(
            "  stdio round trip, {:<16} p50 {:>6.0} µs  p99 {:>6.0} µs",
            side.name(),
            quantile(s, 0.50),
            quantile(s, 0.99)
        );
    }
    for (level, window) in LEVELS.into_iter().enumerate() {
        for side in Side::order(round + level) {
            let rate = servers[side as usize].rate(window, plan.duration);
            results[side as usize].stdio[level].push(rate);
            println!(
                "  stdio, {window:>2} in flight, {:<16} {rate:>7.0} calls/s",
                side.name()
            );
        }
    }
    for side in Side::ALL {
        let peak = process_memory(servers[side as usize].pid(), "VmHWM");
        results[side as usize].peak_rss.push(peak as f64);
    }
}

/// Streamable HTTP, with sessions and stateless: throughput at each number
/// of clients.
pub fn http_round(setup: &Setup, plan: &Plan, round: usize, results: &mut [Results; SIDES]) {
    let params = call_params();
    for stateless in [false, true] {
        let mut args = vec!["--http", "127.0.0.1:0"];
        if stateless {
            args.push("--stateless");
        }
        let servers = Side::ALL.map(|side| spawn_listening(setup.command(side, &args)));
        for (level, clients) in LEVELS.into_iter().enumerate() {
            for side in Side::order(round + level) {
                let url = &servers[side as usize].url;
                let rate = throughput(url, clients, "tools/call", &params, plan.duration);
                let r = &mut results[side as usize];
                let rates = if stateless {
                    &mut r.stateless
                } else {
                    &mut r.sessions
                };
                rates[level].push(rate);
                let mode = if stateless { "stateless," } else { "sessions," };
                println!(
                    "  HTTP {mode:<10} {clients:>2} clients, {:<16} {rate:>7.0} calls/s",
                    side.name()
                );
            }
        }
    }
}

/// Spawn to the first `tools/call` answer, the sides taking turns.
pub fn starts_round(setup: &Setup, plan: &Plan, round: usize, results: &mut [Results; SIDES]) {
    let params = call_params();
    let expected = expected_hash();
    let mut times: [Vec<f64>; SIDES] = Default::default();
    for start in 0..plan.starts {
        for side in Side::order(round + start) {
            let (elapsed, line) = first_call(setup.command(side, &[]), &params);
            assert!(line.contains(&expected), "{line}");
            times[side as usize].push(elapsed.as_secs_f64() * 1e3);
        }
    }
    for side in Side::ALL {
        let t = &times[side as usize];
        println!(
            "  start to first call, {:<16} median {:>5.1} ms",
            side.name(),
            crate::median(t)
        );
        results[side as usize].first_call_ms.extend_from_slice(t);
    }
}
