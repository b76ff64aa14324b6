//! Unit tests of `runtime::error`.
use super::*;

#[test]
fn a_load_error_reads_as_its_path_then_its_problem() {
    let e = LoadError::Compile {
        path: "plugins/p.wasm".into(),
        reason: "bad section".into(),
    };
    assert_eq!(
        e.problem().to_string(),
        "the component is invalid or corrupt: bad section"
    );
    assert_eq!(
        e.to_string(),
        "plugins/p.wasm: the component is invalid or corrupt: bad section"
    );
    let e = LoadError::NotWasm {
        path: "p.wasm".into(),
    };
    assert_eq!(
        e.to_string(),
        "p.wasm: not a WebAssembly file (it does not start with the \\0asm magic number)"
    );
}

fn failure(cause: FailureCause) -> String {
    ToolFailure {
        plugin: "text".into(),
        tool: "regex".into(),
        cause,
    }
    .to_string()
}

#[test]
fn messages_name_plugin_tool_and_cause() {
    assert_eq!(
        failure(FailureCause::Panic {
            message: "index out of bounds".into(),
            location: Some("src/lib.rs:42:5".into())
        }),
        "plugin \"text\" panicked in tool \"regex\": index out of bounds at src/lib.rs:42:5"
    );
    assert_eq!(
        failure(FailureCause::Guest {
            kind: GuestErrorKind::InvalidArguments,
            message: "unclosed group".into()
        }),
        "tool \"regex\" of plugin \"text\" rejected its arguments: unclosed group"
    );
    assert!(failure(FailureCause::Trap("stack overflow".into())).ends_with(": stack overflow"));
}

#[test]
fn a_host_error_reaches_the_log_but_not_the_client() {
    let failure = ToolFailure {
        plugin: "text".into(),
        tool: "regex".into(),
        cause: FailureCause::Host("cannot open /srv/data: No such file (at src/x.rs:1)".into()),
    };
    let client = failure.to_string();
    assert!(
        !client.contains("/srv/data") && !client.contains(".rs:"),
        "{client}"
    );
    assert!(
        client.contains("the server log has the details"),
        "{client}"
    );
    assert!(failure.log_line().contains("cannot open /srv/data"));
}

#[test]
fn clipping_keeps_short_text_and_cuts_long_text_on_a_char_boundary() {
    assert_eq!(clip("short".into(), 16), "short");
    assert_eq!(clip("x".repeat(16), 16), "x".repeat(16));
    assert_eq!(
        clip("x".repeat(20_000), 10),
        format!("{}… (19,990 bytes cut)", "x".repeat(10))
    );
    // "é" is two bytes: a cut through it moves back to its start.
    let clipped = clip("aé".repeat(10), 5);
    assert_eq!(clipped, "aéa… (26 bytes cut)");
    let huge = clip("ü".repeat(MAX_MESSAGE), MAX_MESSAGE);
    assert!(huge.len() < MAX_MESSAGE + 32, "{}", huge.len());
}
