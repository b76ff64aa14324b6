//! Unit tests of `runtime::plugin`.
use super::tool_list::definition_size;
use super::*;
use crate::load::bindings::types as wit;

fn def(name: &str, input_schema: &str) -> wit::ToolDefinition {
    wit::ToolDefinition {
        name: name.into(),
        title: None,
        description: "Does something.".into(),
        input_schema: input_schema.into(),
        output_schema: None,
        annotations: wit::ToolAnnotations {
            title: None,
            read_only_hint: None,
            destructive_hint: None,
            idempotent_hint: None,
            open_world_hint: None,
        },
        icons: Vec::new(),
        task_support: wit::TaskSupport::Forbidden,
    }
}

fn policy(max_tools: u32, max_schema_bytes: u64, max_tool_list_bytes: u64) -> Policy {
    let mut policy = Policy {
        section: "plugins.p".into(),
        config_file: "/etc/mcp-wasm-host.toml".into(),
        ..Policy::default()
    };
    policy.limits.max_tools = max_tools;
    policy.limits.max_schema_bytes = max_schema_bytes;
    policy.limits.max_tool_list_bytes = max_tool_list_bytes;
    policy
}

const SCHEMA: &str = r#"{"type":"object"}"#;

fn refusal(policy: &Policy, defs: &[wit::ToolDefinition]) -> String {
    let e = check_bounds(
        Path::new("plugins/p.wasm"),
        policy,
        defs,
        &Listing::default(),
    )
    .unwrap_err();
    assert!(matches!(e, LoadError::ToolListTooLarge { .. }), "{e:?}");
    let line = e.to_string();
    assert!(!line.contains('\n'), "one line: {line}");
    line
}

#[test]
fn each_bound_refuses_the_plugin_naming_the_value_and_the_key() {
    let three: Vec<_> = (0..3).map(|i| def(&format!("t{i}"), SCHEMA)).collect();
    assert!(
        check_bounds(
            Path::new("p.wasm"),
            &policy(3, 17, 1000),
            &three,
            &Listing::default()
        )
        .is_ok()
    );
    assert_eq!(
        refusal(&policy(2, 1000, 1000), &three),
        "plugins/p.wasm: it lists 3 tools, over the limit of 2 (raise `plugins.p.max_tools` in /etc/mcp-wasm-host.toml)"
    );
    assert_eq!(
        refusal(&policy(3, 16, 1000), &three),
        "plugins/p.wasm: tool \"t0\": its input schema is 17 bytes, over the limit of 16 bytes (raise `plugins.p.max_schema_size` in /etc/mcp-wasm-host.toml)"
    );
    let mut with_output = def("o", SCHEMA);
    with_output.output_schema = Some(format!("{SCHEMA}{}", " ".repeat((2 << 20) - SCHEMA.len())));
    let line = refusal(&policy(3, 1 << 20, 64 << 20), &[with_output]);
    assert!(
        line.contains("its output schema is 2 MiB, over the limit of 1 MiB")
            && line.contains("`plugins.p.max_schema_size`"),
        "{line}"
    );
    // 3 × (2 + 15 + 17) = 102 bytes of names, descriptions and schemas.
    assert!(
        check_bounds(
            Path::new("p.wasm"),
            &policy(3, 17, 102),
            &three,
            &Listing::default()
        )
        .is_ok()
    );
    assert_eq!(
        refusal(&policy(3, 17, 101), &three),
        "plugins/p.wasm: its tool list (names, titles, descriptions, schemas and icons) is 102 bytes, over the limit of 101 bytes (raise `plugins.p.max_tool_list_size` in /etc/mcp-wasm-host.toml)"
    );
}

#[test]
fn titles_annotation_titles_and_icons_count_toward_the_tool_list() {
    let mut d = def("t", SCHEMA);
    let before = definition_size(&d);
    d.title = Some("Title".into());
    d.annotations.title = Some("Other".into());
    d.output_schema = Some(SCHEMA.into());
    d.icons = vec![wit::Icon {
        src: "https://a.example/i.png".into(),
        mime_type: Some("image/png".into()),
        sizes: vec!["48x48".into()],
        theme: None,
    }];
    assert_eq!(definition_size(&d), before + 5 + 5 + 17 + 23 + 9 + 5);
}

#[test]
fn bounds_are_checked_before_any_schema_is_parsed() {
    // Not even JSON: compiling it would fail, but the size bound comes
    // first, so the message names the bound.
    let huge = def("t", &"[".repeat(100_000));
    let line = refusal(&policy(10, 64 << 10, 4 << 20), &[huge]);
    assert!(line.contains("max_schema_size"), "{line}");
}

#[test]
fn a_guest_controlled_tool_name_in_a_message_is_clipped() {
    let long = "n".repeat(1 << 20);
    let line = refusal(&policy(10, 1, 4 << 20), &[def(&long, SCHEMA)]);
    assert!(line.len() < 1024 && line.contains("bytes cut"), "{line}");
    let e = validate(Path::new("p.wasm"), vec![def(&long, SCHEMA)], false).unwrap_err();
    assert!(e.to_string().len() < 1024, "{e}");
}

#[test]
fn a_repeated_name_is_found_wherever_it_is() {
    let mut defs: Vec<_> = (0..2000).map(|i| def(&format!("t{i}"), SCHEMA)).collect();
    assert_eq!(
        validate(Path::new("p.wasm"), defs.clone(), false)
            .unwrap()
            .len(),
        2000
    );
    defs.push(def("t0", SCHEMA));
    let e = validate(Path::new("p.wasm"), defs, false)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "p.wasm: tool \"t0\": the plugin lists this tool name twice"
    );
}
