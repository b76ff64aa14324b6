//! The tests' redis-server and nginx (`host/tests/all/common`: `redis.rs`,
//! `cluster/nginx.rs`, found by `toolchain.rs` as the tests find them, and
//! waited on with `wait.rs`), included here so the benchmarks start the
//! same cluster parts; and the CPU time a process and its children have
//! used, from `/proc`, to say what bounds a measured rate.
#![allow(dead_code, unused_imports, clippy::unwrap_used)]

#[path = "../../tests/all/common/cluster/nginx.rs"]
pub mod nginx;
#[path = "../../tests/all/common/redis.rs"]
pub mod redis;
#[path = "../../tests/all/common/toolchain.rs"]
pub mod toolchain;
#[path = "../../tests/all/common/wait.rs"]
pub mod wait;

pub use nginx::{NGINX, Nginx};
pub use redis::{REDIS, Redis};
pub use toolchain::{Toolchain, toolchain};
pub use wait::{DEADLINE, eventually};

use std::sync::OnceLock;

/// The program `tool` names; the benchmark stops, saying which setup
/// script provides it, when it is missing.
pub fn required(tool: &Toolchain) -> std::path::PathBuf {
    toolchain(tool).unwrap_or_else(|| {
        panic!(
            "this benchmark needs {}: run it with {}=$(scripts/{})",
            tool.setup
                .trim_start_matches("setup-")
                .trim_end_matches(".sh"),
            tool.var,
            tool.setup
        )
    })
}

/// Clock ticks per second, the unit of `/proc/PID/stat`'s times.
fn ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// The fields of `/proc/PID/stat` after the command's name (field 3, the
/// state, first), or `None` once the process is gone.
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    Some(after_name.split_whitespace().map(str::to_string).collect())
}

/// The CPU seconds (user and system) that process `pid` and its live
/// descendants have used (nginx's worker is its master's child).
pub fn cpu_seconds(pid: u32) -> f64 {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(child) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                continue;
            };
            if let Some(parent) = stat_fields(child).and_then(|f| f.get(1)?.parse().ok()) {
                parents.push((child, parent));
            }
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let at = tree[i];
        tree.extend(parents.iter().filter(|(_, p)| *p == at).map(|(c, _)| *c));
        i += 1;
    }
    tree.iter().map(|&p| own_cpu_seconds(p)).sum()
}

/// The CPU seconds process `pid` itself (all its threads) has used.
pub fn own_cpu_seconds(pid: u32) -> f64 {
    // utime and stime are fields 14 and 15, so 11 and 12 after the name.
    stat_fields(pid)
        .map(|f| {
            let ticks: u64 = f[11].parse::<u64>().unwrap_or(0) + f[12].parse::<u64>().unwrap_or(0);
            ticks as f64 / ticks_per_second()
        })
        .unwrap_or(0.0)
}

/// The CPU seconds all the machine's cores have been busy (not idle or
/// waiting on I/O), from `/proc/stat`.
pub fn machine_busy_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let Some(cpu) = stat.lines().find(|l| l.starts_with("cpu ")) else {
        return 0.0;
    };
    let ticks: Vec<u64> = cpu
        .split_whitespace()
        .skip(1)
        .map(|t| t.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is in user).
    let busy: u64 = ticks.iter().take(8).sum::<u64>() - ticks[3] - ticks[4];
    busy as f64 / ticks_per_second()
}

/// How many cores this machine has.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
