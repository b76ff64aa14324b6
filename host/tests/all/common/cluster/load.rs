//! The official Python SDK as a cluster's load: `tests/python/replica_client.py`
//! (a 2026-07-28 `Client` per call, `workers` calls at once, through the
//! load balancer), driven by commands on its stdin, its calls counted per
//! phase and by kind of error (`tool_error`, `http_502`, …).
#![allow(dead_code, clippy::unwrap_used)]

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;

use serde_json::Value;

use crate::common::DEADLINE;

/// The Python SDK client under load.
pub struct Load {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Load {
    /// Starts `workers` calls at once of `tool` with `arguments` through
    /// `url`, each counted `ok` only if its text is `expected` (when given).
    pub fn start(
        url: &str,
        workers: usize,
        tool: &str,
        arguments: &Value,
        expected: Option<&str>,
    ) -> Load {
        let mut command = Command::new(crate::common::python());
        command
            .env(crate::common::WAIT_FOR_LOAD, "1")
            .arg(crate::common::workspace_root().join("tests/python/replica_client.py"))
            .args(["--url", url])
            .args(["--workers", &workers.to_string()])
            .arg("--tool")
            .arg(format!("{tool}={arguments}"));
        if let Some(expected) = expected {
            command.arg("--expect").arg(format!("{tool}={expected}"));
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = crate::common::lines_of(child.stdout.take().unwrap());
        Load {
            child,
            stdin,
            lines,
        }
    }

    /// Sends the client one command (`phase LABEL`, `add NAME JSON`).
    pub fn command(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Starts a phase and waits until `calls` of its calls have ended.
    pub fn phase(&mut self, label: &str, calls: u64) {
        self.command(&format!("phase {label}"));
        self.wait_for(label, calls);
    }

    /// Waits until `calls` calls of the phase `label` have ended.
    pub fn wait_for(&mut self, label: &str, calls: u64) {
        let want = format!("done {label} {calls}");
        loop {
            let line = self
                .lines
                .recv_timeout(DEADLINE)
                .unwrap_or_else(|_| panic!("the client never reached {want:?}"));
            if line == want {
                return;
            }
        }
    }

    /// Stops the client, once its calls in flight end; its summary.
    pub fn stop(mut self) -> Value {
        self.command("stop");
        let mut last = String::new();
        while let Ok(line) = self.lines.recv_timeout(DEADLINE) {
            last = line;
        }
        assert!(self.child.wait().unwrap().success(), "the client failed");
        serde_json::from_str(&last).unwrap_or_else(|_| panic!("no summary: {last:?}"))
    }
}

/// The phase `label` of a summary: its calls, those `ok`, and its errors
/// by kind.
pub fn phase_of(summary: &Value, label: &str) -> (u64, u64, serde_json::Map<String, Value>) {
    let phase = summary["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["label"] == label)
        .unwrap_or_else(|| panic!("no phase {label} in {summary}"));
    (
        phase["calls"].as_u64().unwrap(),
        phase["ok"].as_u64().unwrap(),
        phase["errors"].as_object().unwrap().clone(),
    )
}
