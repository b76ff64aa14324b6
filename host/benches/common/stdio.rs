//! A client speaking newline-delimited JSON-RPC to a server it spawned, over
//! the server's stdin and stdout, one request at a time or many in flight.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The `initialize` request every stdio benchmark sends (id 0).
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#;

/// The notification that completes the handshake.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A request line: `method` with `params`, numbered `id`.
pub fn request(id: u64, method: &str, params: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#)
}

/// A server spawned with piped stdin and stdout (stderr discarded), and the
/// last line it wrote. Dropping it kills the server.
pub struct StdioClient {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    /// The last line read, line ending included.
    pub line: String,
}

impl StdioClient {
    /// Spawns `command`.
    pub fn spawn(mut command: Command) -> StdioClient {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        StdioClient {
            stdin: child.stdin.take().map(BufWriter::new),
            stdout: BufReader::new(child.stdout.take().unwrap()),
            child,
            line: String::new(),
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `message` as one line into the buffer: it goes out, in one
    /// write with whatever else is buffered, at the next [`StdioClient::send`].
    pub fn write(&mut self, message: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(message.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
    }

    /// Writes `message` as one line and flushes it.
    pub fn send(&mut self, message: &str) {
        self.write(message);
        self.stdin.as_mut().unwrap().flush().unwrap();
    }

    /// Reads the next line into [`StdioClient::line`]; the server closing
    /// stdout panics.
    pub fn recv(&mut self) -> &str {
        self.line.clear();
        assert!(
            self.stdout.read_line(&mut self.line).unwrap() > 0,
            "the server closed stdout"
        );
        &self.line
    }

    /// Sends `message`, reads one line, checks it is a result, and returns
    /// the time that took.
    pub fn round_trip(&mut self, message: &str) -> Duration {
        let t = Instant::now();
        self.send(message);
        self.recv();
        let elapsed = t.elapsed();
        assert!(self.line.contains("\"result\""), "{}", self.line);
        elapsed
    }

    /// The handshake: `initialize`, its result, `notifications/initialized`.
    pub fn initialize(&mut self) {
        self.round_trip(INITIALIZE);
        self.send(INITIALIZED);
    }

    /// Closes stdin and waits for the server to exit on its own.
    pub fn close(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the server exited with {status}");
    }
}

impl Drop for StdioClient {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Spawns `command` and times it to the answer of its first `tools/call`
/// (`params`; the handshake and the call are sent at once, as a client
/// does). Returns that time and the answer's line.
pub fn first_call(command: Command, params: &Value) -> (Duration, String) {
    let t = Instant::now();
    let mut client = StdioClient::spawn(command);
    client.write(INITIALIZE);
    client.write(INITIALIZED);
    client.send(&request(1, "tools/call", params));
    while !client.recv().contains(r#""id":1"#) {}
    (t.elapsed(), std::mem::take(&mut client.line))
}
