//! The server's log as structured events: a server started with
//! [`JSON_LOGS`](super::JSON_LOGS) writes one JSON object per line
//! (tracing's JSON format: `level`, `target`, `fields` with `message`, and
//! the `spans` the event happened in), and a test waits for an event by its
//! fields and spans rather than by the wording of its message.
#![allow(dead_code, clippy::unwrap_used)]

use std::sync::Mutex;

use serde_json::Value;

use super::{DEADLINE, eventually};

/// One log event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event(pub Value);

impl Event {
    /// `TRACE`, `DEBUG`, `INFO`, `WARN` or `ERROR`.
    pub fn level(&self) -> &str {
        self.0["level"].as_str().unwrap_or_default()
    }

    /// The field `name` (`Null` if the event has none).
    pub fn field(&self, name: &str) -> &Value {
        &self.0["fields"][name]
    }

    /// The field `name` as text (empty if absent or not text).
    pub fn text(&self, name: &str) -> &str {
        self.field(name).as_str().unwrap_or_default()
    }

    /// The field `name` of the innermost span called `span` the event
    /// happened in (`Null` if none).
    pub fn span_field(&self, span: &str, name: &str) -> &Value {
        self.0["spans"]
            .as_array()
            .and_then(|spans| spans.iter().rev().find(|s| s["name"] == span))
            .map_or(&Value::Null, |s| &s[name])
    }
}

/// The events of a JSON log (lines that are not JSON objects, such as a
/// panic's, are skipped).
pub fn events(log: &str) -> Vec<Event> {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(Value::is_object)
        .map(Event)
        .collect()
}

/// Waits until the JSON log captured in `log` holds an event that
/// `matches`; returns the first.
pub fn wait_for_event(log: &Mutex<String>, what: &str, matches: impl Fn(&Event) -> bool) -> Event {
    eventually(
        DEADLINE,
        || format!("no log event {what}:\n{}", log.lock().unwrap()),
        || events(&log.lock().unwrap()).into_iter().find(&matches),
    )
}

#[test]
fn a_json_log_line_is_read_as_its_fields_and_spans() {
    let log = r#"{"timestamp":"t","level":"WARN","fields":{"message":"m","plugin":"p","tools":3},"target":"x","spans":[{"name":"outer","file":"a"},{"name":"handle","file":"b"}]}
not json
{"level":"INFO","fields":{"message":"n"}}"#;
    let events = events(log);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0].level(), "WARN");
    assert_eq!(events[0].text("plugin"), "p");
    assert_eq!(events[0].field("tools"), 3);
    assert_eq!(events[0].span_field("handle", "file"), "b");
    assert_eq!(events[1].span_field("handle", "file"), &Value::Null);
}
