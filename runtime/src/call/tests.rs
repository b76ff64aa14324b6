//! Unit tests of `runtime::call`.
use super::*;
use crate::capabilities::{self, Grants};
use crate::definitions::output::ToolHints;
use crate::definitions::output::cost;
use crate::definitions::schema::Schema;

/// Each shape a call can end in, with a denial during it: the denial is
/// told in every failure the guest made (its error, error result, panic
/// or trap), and nowhere else (a success, a limit the host enforced).
#[test]
fn a_denial_is_told_in_every_failure_the_guest_made() {
    let denials = vec!["the policy denied GET http://x/: add it to `k`".to_string()];
    let fail = |cause| {
        Err(ToolFailure {
            plugin: "p".into(),
            tool: "t".into(),
            cause,
        })
    };
    let output = |is_error, content: Vec<Content>| {
        Ok(ToolOutput {
            content,
            structured: None,
            is_error,
        })
    };
    let cases: Vec<(Result<ToolOutput, ToolFailure>, bool)> = vec![
        (
            fail(FailureCause::Guest {
                kind: GuestErrorKind::Failed,
                message: "m".into(),
            }),
            true,
        ),
        (
            fail(FailureCause::Panic {
                message: "m".into(),
                location: None,
            }),
            true,
        ),
        (fail(FailureCause::Trap("m".into())), true),
        (output(true, vec![Content::text("m")]), true),
        (output(true, vec![]), true),
        (output(false, vec![Content::text("m")]), false),
        (fail(FailureCause::OutOfFuel { limit: 1 }), false),
    ];
    for (outcome, told) in cases {
        let before = format!("{outcome:?}");
        let after = format!("{:?}", told_denials(&denials, outcome));
        assert_eq!(
            after.contains("add it to `k`"),
            told,
            "{before} became {after}"
        );
    }
    // Nothing changes without a denial.
    let quiet = output(true, vec![Content::text("m")]);
    let before = format!("{quiet:?}");
    assert_eq!(format!("{:?}", told_denials(&[], quiet)), before);
}

/// Every form of a secret, cut by the clip of a guest's text (errors,
/// panics, bad output, log lines, progress messages) after each of its
/// bytes: nothing of it is left, only the mark, itself clipped.
#[test]
fn a_secret_straddling_the_clip_at_every_offset_leaves_no_prefix() {
    use crate::capabilities::secrets::redact::forms;
    const SECRET: &str = "Zq9/sec+ret=VALUE~42";
    let grants = Grants {
        secrets: capabilities::secrets::SecretsPolicy::for_tests(&[("S", SECRET)], false),
        ..Grants::default()
    };
    let mut cases = 0;
    for form in forms(SECRET) {
        for cut in 1..form.len() {
            let before = " ".repeat(MAX_MESSAGE - cut);
            let text = grants.guest_message(format!("{before}{form} tail"));
            let expected = clip(format!("{before}[redacted] tail"), MAX_MESSAGE);
            assert!(text == expected, "{form:?} cut after {cut} bytes");
            cases += 1;
        }
    }
    assert!(cases > 100, "{cases}");
}

#[test]
fn the_denied_hint_names_each_capabilitys_key_then_the_file() {
    use crate::capabilities::filesystem::Mount;
    let mut policy = Policy {
        section: "plugins.p".into(),
        config_file: "/etc/mcp-wasm-host.toml".into(),
        ..Policy::default()
    };
    Arc::make_mut(&mut policy.grants)
        .filesystem
        .mounts
        .push(Mount {
            host: "/srv/data".into(),
            guest: "/data".into(),
            write: false,
        });
    assert_eq!(
        denied_hint(&policy),
        "the sandbox grants /data (read-only); to grant a directory add `[[plugins.p.mounts]]` \
             with `host = \"/host/dir\"`, `guest = \"/guest/dir\"` and `write = true` for writing; \
             to grant an environment variable set it in `[plugins.p.env]` (NAME = \"value\") or \
             list its name in `plugins.p.env_passthrough` (in /etc/mcp-wasm-host.toml)"
    );
}

#[test]
fn every_block_costs_its_framing_even_when_empty() {
    let empty = ToolOutput {
        content: vec![Content::text(""); 10_000],
        ..ToolOutput::default()
    };
    assert!(output_size(&empty) >= 10_000 * cost::BLOCK_COST);
}

#[test]
fn converted_results_count_the_text_copy_of_structured_content() {
    let tool = PluginTool {
        name: "t".into(),
        title: None,
        description: "d".into(),
        input: Schema::compile_object("input schema", r#"{"type":"object"}"#).unwrap(),
        output: None,
        hints: ToolHints::default(),
        icons: Vec::new(),
        task_support: Default::default(),
    };
    let result = wit::CallResult {
        content: Vec::new(),
        structured_content: Some(r#"{"a":"\u0001\u0002","b":[1,2,3]}"#.into()),
        is_error: false,
    };
    let out = convert_result(&tool, result).unwrap();
    assert_eq!(out.content.len(), 1, "the JSON is added as a text block");
    // The client receives the structured JSON twice: as itself, and
    // escaped as a JSON string in the text block.
    let Content::Text { text, .. } = &out.content[0] else {
        panic!("{:?}", out.content)
    };
    let structured = serde_json::to_string(out.structured.as_ref().unwrap()).unwrap();
    let as_string = serde_json::to_string(text).unwrap();
    assert!(
        output_size(&out) >= (structured.len() + as_string.len()) as u64,
        "{} < {structured} + {as_string}",
        output_size(&out)
    );
}
