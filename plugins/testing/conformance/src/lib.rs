//! Test plugin: the tools the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, run by `scripts/conformance.sh`)
//! calls by name, each returning what its scenario checks for.

use std::f64::consts::PI;
use std::thread;
use std::time::Duration;

use mcp_wasm_sdk::client::{
    self, Answer, ClientError, CreateMessage, Elicitation, Input, RequestKind,
};
use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::serde_json::Value;

/// A 2×2 RGB PNG: red, green, blue and white pixels.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a,
    0x73, 0x00, 0x00, 0x00, 0x12, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0xc0,
    0x00, 0xc2, 0x0c, 0xff, 0x81, 0x00, 0x00, 0x1f, 0xee, 0x05, 0xfb, 0xf1, 0xab, 0xba, 0x77, 0x00,
    0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// Sample rate of the generated WAV clip, in Hz.
const WAV_RATE: u32 = 8000;

/// The pause between the notifications of the logging and progress tools:
/// the suite's scenarios ask for about 50 ms.
const STEP: Duration = Duration::from_millis(50);

/// The input schema the `json-schema-2020-12` scenario expects to find
/// unchanged in `tools/list`: `$schema`, `$defs` and `additionalProperties`
/// must survive the host.
const JSON_SCHEMA_2020_12: &str = r##"{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {
    "address": {
      "$anchor": "addressDef",
      "type": "object",
      "properties": {
        "street": { "type": "string" },
        "city": { "type": "string" }
      }
    }
  },
  "properties": {
    "name": { "type": "string" },
    "address": { "$ref": "#/$defs/address" },
    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
    "phone": { "type": "string" },
    "email": { "type": "string" }
  },
  "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
  "if": {
    "properties": { "contactMethod": { "const": "phone" } },
    "required": ["contactMethod"]
  },
  "then": { "required": ["phone"] },
  "else": { "required": ["email"] },
  "additionalProperties": false
}"##;

/// The form `test_elicitation` asks for.
const USER_FORM: &str = r#"{
  "type": "object",
  "properties": {
    "username": { "type": "string", "description": "User's response" },
    "email": { "type": "string", "description": "User's email address" }
  },
  "required": ["username", "email"]
}"#;

/// The form of `test_elicitation_sep1034_defaults`: a default value for
/// every primitive type (SEP-1034).
const DEFAULTS_FORM: &str = r#"{
  "type": "object",
  "properties": {
    "name": { "type": "string", "description": "User name", "default": "John Doe" },
    "age": { "type": "integer", "description": "User age", "default": 30 },
    "score": { "type": "number", "description": "User score", "default": 95.5 },
    "status": {
      "type": "string",
      "description": "User status",
      "enum": ["active", "inactive", "pending"],
      "default": "active"
    },
    "verified": { "type": "boolean", "description": "Verification status", "default": true }
  }
}"#;

/// The form of `test_elicitation_sep1330_enums`: the five enum forms of
/// SEP-1330.
const ENUMS_FORM: &str = r#"{
  "type": "object",
  "properties": {
    "untitledSingle": {
      "type": "string",
      "description": "Select one option",
      "enum": ["option1", "option2", "option3"]
    },
    "titledSingle": {
      "type": "string",
      "description": "Select one option with titles",
      "oneOf": [
        { "const": "value1", "title": "First Option" },
        { "const": "value2", "title": "Second Option" },
        { "const": "value3", "title": "Third Option" }
      ]
    },
    "legacyEnum": {
      "type": "string",
      "description": "Select one option (legacy)",
      "enum": ["opt1", "opt2", "opt3"],
      "enumNames": ["Option One", "Option Two", "Option Three"]
    },
    "untitledMulti": {
      "type": "array",
      "description": "Select multiple options",
      "minItems": 1,
      "maxItems": 3,
      "items": { "type": "string", "enum": ["option1", "option2", "option3"] }
    },
    "titledMulti": {
      "type": "array",
      "description": "Select multiple options with titles",
      "minItems": 1,
      "maxItems": 3,
      "items": {
        "anyOf": [
          { "const": "value1", "title": "First Choice" },
          { "const": "value2", "title": "Second Choice" },
          { "const": "value3", "title": "Third Choice" }
        ]
      }
    }
  }
}"#;

/// The form of the `input-required-result` scenarios that ask for a name.
const NAME_FORM: &str =
    r#"{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}"#;

/// The form of `test_input_required_result_request_state`.
const CONFIRM_FORM: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

/// The form of the second round of `test_input_required_result_multi_round`.
const COLOR_FORM: &str =
    r#"{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}"#;

/// Sends `requests` at once and describes each answer (or error) on a line.
fn ask_all(requests: Vec<(&str, Input)>) -> String {
    let keys: Vec<String> = requests.iter().map(|(k, _)| k.to_string()).collect();
    let answers = client::request_inputs(
        requests
            .into_iter()
            .map(|(k, input)| (k.to_string(), input))
            .collect(),
    );
    keys.iter()
        .zip(answers)
        .map(|(key, answer)| format!("{key}: {}", describe_answer(answer)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line for an answer of `request_inputs`.
fn describe_answer(answer: Result<Answer, ClientError>) -> String {
    match answer {
        Ok(Answer::Message(m)) => format!("model said {:?}", m.text()),
        Ok(Answer::Elicitation(e)) => describe(&e),
        Ok(Answer::Roots(roots)) => {
            let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
            format!("roots {}", uris.join(", "))
        }
        Err(e) => format!("not asked ({e})"),
    }
}

/// The `name` an accepted elicitation answered, or `anonymous`.
fn name_of(answer: &Elicitation) -> String {
    answer
        .content_json()
        .and_then(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| "anonymous".into())
}

/// The elicitation answered for `key` by [`client::request_inputs`].
fn elicit_as(key: &str, message: &str, form: &str) -> Result<Elicitation, ClientError> {
    match client::request_inputs(vec![(key.to_string(), Input::elicit(message, form))]).pop() {
        Some(Ok(Answer::Elicitation(e))) => Ok(e),
        Some(Err(e)) => Err(e),
        other => Err(ClientError::Failed(format!("unexpected answer {other:?}"))),
    }
}

/// Arguments of `test_sampling`.
#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the client's model.
    prompt: String,
}

/// Arguments of `test_elicitation`.
#[derive(Deserialize, JsonSchema)]
struct ElicitationArgs {
    /// The message to show the client's user.
    message: String,
}

/// `action=…, content=…` for an elicitation's answer.
fn describe(answer: &Elicitation) -> String {
    format!(
        "action={}, content={}",
        answer.action,
        answer.content.as_deref().unwrap_or("null")
    )
}

/// A WAV file (RIFF, PCM, 8-bit mono at [`WAV_RATE`]) holding `millis`
/// milliseconds of a 440 Hz tone.
fn wav(millis: u32) -> Vec<u8> {
    let samples = WAV_RATE * millis / 1000;
    let mut out = Vec::with_capacity(44 + samples as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // channels
    out.extend_from_slice(&WAV_RATE.to_le_bytes()); // sample rate
    out.extend_from_slice(&WAV_RATE.to_le_bytes()); // byte rate
    out.extend_from_slice(&1u16.to_le_bytes()); // block align
    out.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&samples.to_le_bytes());
    for n in 0..samples {
        let t = f64::from(n) / f64::from(WAV_RATE);
        let level = 128.0 + 64.0 * (2.0 * PI * 440.0 * t).sin();
        // Always within 64..=192, so the conversion cannot truncate.
        out.push(level.round() as u8);
    }
    out
}

struct Conformance;

/// The form `test_input_required_result_prompt` asks for.
const CONTEXT_FORM: &str =
    r#"{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}"#;

/// The resources, templates, prompts and completions the resources,
/// prompts and completion scenarios read, get and complete.
fn served(router: Router) -> Router {
    router
        .resource_text(
            ResourceDef::new("test://static-text", "static-text")
                .description("A fixed text resource.")
                .mime_type("text/plain"),
            "This is the content of the static text resource.",
        )
        .resource(
            ResourceDef::new("test://static-binary", "static-binary")
                .description("A 2×2 PNG image.")
                .mime_type("image/png"),
            |uri: &str, _: &Vars| -> ResourceResult { Ok(Contents::blob(uri, "image/png", PNG)) },
        )
        .resource_text(
            ResourceDef::new("test://watched-resource", "watched-resource")
                .description("A resource clients subscribe to.")
                .mime_type("text/plain"),
            "Watched resource content.",
        )
        .template(
            TemplateDef::new("test://template/{id}/data", "template-data")
                .description("JSON data for the id in the URI.")
                .mime_type("application/json"),
            |uri: &str, vars: &Vars| -> ResourceResult {
                let id = &vars["id"];
                let json = mcp_wasm_sdk::serde_json::json!({
                    "id": id,
                    "templateTest": true,
                    "data": format!("Data for ID: {id}"),
                });
                Ok(Contents::text(uri, "application/json", json.to_string()))
            },
        )
        .prompt(
            PromptDef::new("test_simple_prompt", "A prompt without arguments."),
            |_: &Vars| -> PromptResult {
                Ok(Messages::new().user(Output::text("This is a simple prompt for testing.")))
            },
        )
        .prompt(
            PromptDef::new("test_prompt_with_arguments", "A prompt with two arguments.")
                .argument("arg1", "First test argument", true)
                .argument("arg2", "Second test argument", true),
            |args: &Vars| -> PromptResult {
                Ok(Messages::new().user(Output::text(format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args["arg1"], args["arg2"]
                ))))
            },
        )
        .prompt(
            PromptDef::new(
                "test_prompt_with_embedded_resource",
                "A prompt that embeds the resource it is given.",
            )
            .argument("resourceUri", "URI of the resource to embed", true),
            |args: &Vars| -> PromptResult {
                Ok(Messages::new()
                    .user(Output::resource_text(
                        args["resourceUri"].clone(),
                        "text/plain",
                        "Embedded resource content for testing.",
                    ))
                    .user(Output::text("Please process the embedded resource above.")))
            },
        )
        .prompt(
            PromptDef::new("test_prompt_with_image", "A prompt with an image."),
            |_: &Vars| -> PromptResult {
                Ok(Messages::new()
                    .user(Output::image(PNG, "image/png"))
                    .user(Output::text("Please analyze the image above.")))
            },
        )
        .prompt(
            PromptDef::new(
                "test_input_required_result_prompt",
                "A prompt that asks the user for context first.",
            ),
            |_: &Vars| -> PromptResult {
                let answer = elicit_as(
                    "user_context",
                    "What context should the prompt use?",
                    CONTEXT_FORM,
                )?;
                let context = answer
                    .content_json()
                    .and_then(|c| c.get("context").and_then(Value::as_str).map(str::to_owned))
                    .unwrap_or_else(|| "none".into());
                Ok(Messages::new().user(Output::text(format!("Use this context: {context}"))))
            },
        )
        .complete_prompt(
            "test_prompt_with_arguments",
            "arg1",
            |typed: &str, _: &Vars| {
                ["test", "testValue1", "other"]
                    .iter()
                    .filter(|v| v.starts_with(typed))
                    .map(|v| v.to_string())
                    .collect()
            },
        )
}

impl Plugin for Conformance {
    fn router() -> Router {
        served(Router::new())
            .tool(
                ToolDef::new("test_simple_text", "Returns a fixed sentence as text.")
                    .read_only()
                    .idempotent()
                    .closed_world(),
                |_: NoArgs| Ok("This is a simple text response for testing."),
            )
            .tool(
                ToolDef::new("test_image_content", "Returns a 2×2 PNG image.")
                    .read_only()
                    .idempotent()
                    .closed_world(),
                |_: NoArgs| -> ToolResult { Ok(Output::image(PNG, "image/png")) },
            )
            .tool(
                ToolDef::new(
                    "test_audio_content",
                    "Returns a tenth of a second of a 440 Hz tone as a WAV clip.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult { Ok(Output::audio(wav(100), "audio/wav")) },
            )
            .tool(
                ToolDef::new(
                    "test_embedded_resource",
                    "Returns an embedded text resource, test://embedded-resource.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::resource_text(
                        "test://embedded-resource",
                        "text/plain",
                        "This is an embedded resource content.",
                    ))
                },
            )
            .tool(
                ToolDef::new(
                    "test_multiple_content_types",
                    "Returns a text, an image and an embedded JSON resource in one result.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::text("Multiple content types test:")
                        .and(Output::image(PNG, "image/png"))
                        .and(Output::resource_text(
                            "test://mixed-content-resource",
                            "application/json",
                            r#"{"test":"data","value":123}"#,
                        )))
                },
            )
            .tool(
                ToolDef::new(
                    "test_tool_with_logging",
                    "Logs three messages at info level, 50 ms apart, then returns.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    log::info("Tool execution started");
                    thread::sleep(STEP);
                    log::info("Tool processing data");
                    thread::sleep(STEP);
                    log::info("Tool execution completed");
                    Ok(Output::text("Tool with logging executed successfully"))
                },
            )
            .tool(
                ToolDef::new(
                    "test_tool_with_progress",
                    "Reports progress 0, 50 and 100 of 100, 50 ms apart, then returns.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    progress(0.0, Some(100.0), Some("starting"));
                    thread::sleep(STEP);
                    progress(50.0, Some(100.0), Some("halfway"));
                    thread::sleep(STEP);
                    progress(100.0, Some(100.0), Some("done"));
                    Ok(Output::text("Tool with progress executed successfully"))
                },
            )
            .tool(
                ToolDef::new(
                    "test_error_handling",
                    "Always fails: returns a result marked as an error.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    Ok(
                        Output::text("This tool intentionally returns an error for testing")
                            .error(),
                    )
                },
            )
            .tool(
                ToolDef::new(
                    "test_sampling",
                    "Asks the client's model to answer `prompt` (sampling, at most 100 \
                     tokens) and returns the answer.",
                )
                .read_only(),
                |args: SamplingArgs| -> ToolResult {
                    let reply = client::create_message(CreateMessage::new(100).user(args.prompt))?;
                    Ok(Output::text(format!("LLM response: {}", reply.text())))
                },
            )
            .tool(
                ToolDef::new(
                    "test_elicitation",
                    "Asks the client's user for a username and an email address, showing \
                     `message`, and returns the answer.",
                )
                .read_only(),
                |args: ElicitationArgs| -> ToolResult {
                    let answer = client::elicit(&args.message, USER_FORM)?;
                    Ok(Output::text(format!(
                        "User response: {}",
                        describe(&answer)
                    )))
                },
            )
            .tool(
                ToolDef::new(
                    "test_elicitation_sep1034_defaults",
                    "Asks the client's user to fill in a form whose fields have default \
                     values (string, integer, number, enum, boolean), and returns the answer.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let answer = client::elicit(
                        "Please review and update the form fields with defaults",
                        DEFAULTS_FORM,
                    )?;
                    Ok(Output::text(format!(
                        "Elicitation completed: {}",
                        describe(&answer)
                    )))
                },
            )
            .tool(
                ToolDef::new(
                    "test_elicitation_sep1330_enums",
                    "Asks the client's user to pick from enums of every form (untitled, \
                     titled, legacy enumNames, single and multiple choice), and returns the \
                     answer.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let answer =
                        client::elicit("Please select options from the enum fields", ENUMS_FORM)?;
                    Ok(Output::text(format!(
                        "Elicitation completed: {}",
                        describe(&answer)
                    )))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_elicitation",
                    "Asks the client's user for their name (key `user_name`) and greets them.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let answer = elicit_as("user_name", "What is your name?", NAME_FORM)?;
                    Ok(Output::text(format!("Hello, {}!", name_of(&answer))))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_sampling",
                    "Asks the client's model for the capital of France (key                      `capital_question`) and returns its answer.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let request = CreateMessage::new(100).user("What is the capital of France?");
                    let answer = client::request_inputs(vec![(
                        "capital_question".into(),
                        Input::CreateMessage(request),
                    )]);
                    match answer.into_iter().next() {
                        Some(Ok(Answer::Message(m))) => Ok(Output::text(m.text())),
                        other => Err(ToolError::Failed(format!("no answer: {other:?}"))),
                    }
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_list_roots",
                    "Asks the client for its roots (key `client_roots`) and lists them.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::text(ask_all(vec![("client_roots", Input::ListRoots)])))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_request_state",
                    "Asks the client's user to confirm (key `confirm`); the answer comes                      back through the signed request state: state-ok.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let answer = elicit_as("confirm", "Please confirm", CONFIRM_FORM)?;
                    Ok(Output::text(format!("state-ok: {}", describe(&answer))))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_multiple_inputs",
                    "Asks the client's user for their name, its model for a greeting and                      the client for its roots, all at once.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::text(ask_all(vec![
                        ("user_name", Input::elicit("What is your name?", NAME_FORM)),
                        (
                            "greeting",
                            Input::CreateMessage(CreateMessage::new(50).user("Generate a greeting")),
                        ),
                        ("client_roots", Input::ListRoots),
                    ])))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_multi_round",
                    "Asks the client's user for their name, then (a second round) for their                      favourite colour.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let name = elicit_as("step1", "Step 1: What is your name?", NAME_FORM)?;
                    let color = elicit_as("step2", "Step 2: What is your favorite color?", COLOR_FORM)?;
                    Ok(Output::text(format!(
                        "{} likes {}",
                        name_of(&name),
                        color.content_json().map_or("nothing".into(), |c| c["color"].to_string())
                    )))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_tampered_state",
                    "Asks the client's user to confirm; its request state is signed, so a                      changed one is refused.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    let answer = elicit_as("confirm", "Please confirm", CONFIRM_FORM)?;
                    Ok(Output::text(describe(&answer)))
                },
            )
            .tool(
                ToolDef::new(
                    "test_input_required_result_capabilities",
                    "Asks the client's user and its model at once; the host asks only what                      the client declared it supports.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    Ok(Output::text(ask_all(vec![
                        ("user_name", Input::elicit("What is your name?", NAME_FORM)),
                        (
                            "greeting",
                            Input::CreateMessage(CreateMessage::new(50).user("Generate a greeting")),
                        ),
                    ])))
                },
            )
            .tool(
                ToolDef::new(
                    "test_missing_capability",
                    "Needs the client's model (sampling): a client that did not declare \
                     sampling gets the missing-capability error.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    client::require(&[RequestKind::Sampling]);
                    let reply = client::create_message(CreateMessage::new(50).user("Say hi"))?;
                    Ok(Output::text(reply.text()))
                },
            )
            .tool(
                ToolDef::new(
                    "test_streaming_elicitation",
                    "Reports progress, then asks the client's user for their name.",
                )
                .read_only(),
                |_: NoArgs| -> ToolResult {
                    progress(1.0, Some(2.0), Some("asking"));
                    let answer = elicit_as("user_name", "What is your name?", NAME_FORM)?;
                    Ok(Output::text(format!("Hello, {}!", name_of(&answer))))
                },
            )
            .tool(
                ToolDef::new(
                    "test_logging_tool",
                    "Writes three log messages at info, then returns.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    for i in 1..=3 {
                        log::info(format!("log message {i}"));
                    }
                    Ok(Output::text("logged three messages"))
                },
            )
            .tool(
                ToolDef::new(
                    "test_trigger_tool_change",
                    "Changes the server's tool list: adds the `fnv` plugin from /staging to \
                     the plugins directory (mounted at /plugins), or removes it if it is there.",
                ),
                |_: NoArgs| -> ToolResult {
                    let target = std::path::Path::new("/plugins/fnv.wasm");
                    let added = !target.exists();
                    if added {
                        std::fs::copy("/staging/fnv.wasm", target)
                    } else {
                        std::fs::remove_file(target).map(|()| 0)
                    }
                    .map_err(|e| ToolError::failed(format!("cannot change the plugins: {e}")))?;
                    Ok(Output::text(if added { "added fnv" } else { "removed fnv" }))
                },
            )
            .tool(
                ToolDef::new(
                    "test_trigger_prompt_change",
                    "Changes the server's prompt (and tool) list: adds the `fnv` plugin from /staging to \
                     the plugins directory (mounted at /plugins), or removes it if it is there.",
                ),
                |_: NoArgs| -> ToolResult {
                    let target = std::path::Path::new("/plugins/fnv.wasm");
                    let added = !target.exists();
                    if added {
                        std::fs::copy("/staging/fnv.wasm", target)
                    } else {
                        std::fs::remove_file(target).map(|()| 0)
                    }
                    .map_err(|e| ToolError::failed(format!("cannot change the plugins: {e}")))?;
                    Ok(Output::text(if added { "added fnv" } else { "removed fnv" }))
                },
            )
            .tool(
                ToolDef::new(
                    "test_custom_header",
                    "Echoes `region`, which a 2026-07-28 client also sends as the \
                     `Mcp-Param-Region` header (SEP-2243).",
                )
                .raw_input_schema(
                    r#"{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}"#,
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |args: Value| -> ToolResult { Ok(Output::text(format!("region {}", args["region"]))) },
            )
            .tool(
                ToolDef::new(
                    "test_reconnection",
                    "Waits 100 ms, then returns; the SSE polling scenario calls it.",
                )
                .read_only()
                .idempotent()
                .closed_world(),
                |_: NoArgs| -> ToolResult {
                    thread::sleep(2 * STEP);
                    Ok(Output::text("Reconnection test completed"))
                },
            )
            .tool(
                ToolDef::new(
                    "json_schema_2020_12_tool",
                    "Tool with JSON Schema 2020-12 features ($schema, $defs, $ref, \
                     additionalProperties); echoes its arguments.",
                )
                .raw_input_schema(JSON_SCHEMA_2020_12)
                .read_only()
                .idempotent()
                .closed_world(),
                |args: Value| -> ToolResult { Ok(Output::text(format!("Received: {args}"))) },
            )
            .tool(
                ToolDef::new("greet", "Greets someone by name; never a task.")
                    .read_only()
                    .closed_world(),
                |args: GreetArgs| -> ToolResult {
                    Ok(Output::text(format!("Hello, {}!", args.name)))
                },
            )
            .tool(
                ToolDef::new(
                    "slow_compute",
                    "Works for `seconds` seconds, then returns; runs as a task for a client \
                     that supports tasks.",
                )
                .read_only()
                .closed_world()
                .task(TaskSupport::Optional),
                |args: SlowArgs| -> ToolResult {
                    let seconds = args.seconds.min(600);
                    for step in 0..seconds {
                        progress(step as f64, Some(seconds as f64), Some("computing"));
                        thread::sleep(Duration::from_secs(1));
                    }
                    thread::sleep(Duration::from_millis(args.millis.unwrap_or(0).min(1000)));
                    let label = args.label.unwrap_or_default();
                    Ok(Output::text(format!("computed {label} in {seconds} s")))
                },
            )
            .tool(
                ToolDef::new(
                    "failing_job",
                    "Works for a second, then fails with a tool error; runs only as a task.",
                )
                .closed_world()
                .task(TaskSupport::Required),
                |_: NoArgs| -> ToolResult {
                    thread::sleep(TASK_START);
                    Err(ToolError::Failed("the job failed, as it always does".into()))
                },
            )
            .tool(
                ToolDef::new(
                    "protocol_error_job",
                    "Works for a second, then needs the client's roots: a client that did \
                     not declare roots gets the missing-capability protocol error (a \
                     failed task).",
                )
                .closed_world()
                .task(TaskSupport::Optional),
                |_: NoArgs| -> ToolResult {
                    thread::sleep(TASK_START);
                    client::require(&[RequestKind::Roots]);
                    Ok(Output::text("the client has roots"))
                },
            )
            .tool(
                ToolDef::new(
                    "confirm_delete",
                    "Asks the client's user to confirm deleting `filename` (after a \
                     second, so that it asks as a task), then says what it did.",
                )
                .destructive(false)
                .closed_world()
                .task(TaskSupport::Optional),
                |args: DeleteArgs| -> ToolResult {
                    thread::sleep(TASK_START);
                    let message = format!("Delete {}?", args.filename);
                    let answer = client::elicit(&message, CONFIRM_DELETE_FORM)?;
                    Ok(Output::text(format!("{}: {}", args.filename, describe(&answer))))
                },
            )
            .tool(
                ToolDef::new(
                    "multi_input",
                    "Asks the client's user two questions at once (after a second, so \
                     that it asks as a task), then returns both answers.",
                )
                .read_only()
                .closed_world()
                .task(TaskSupport::Optional),
                |_: NoArgs| -> ToolResult {
                    thread::sleep(TASK_START);
                    Ok(Output::text(ask_all(vec![
                        ("first", Input::elicit("First name?", CONFIRM_DELETE_FORM)),
                        ("second", Input::elicit("Second name?", CONFIRM_DELETE_FORM)),
                    ])))
                },
            )
            .tool(
                ToolDef::new(
                    "test_tool_with_task",
                    "Asks the client's user for their name (key `user_name`) at once, \
                     then works for a second and greets them; runs only as a task.",
                )
                .read_only()
                .closed_world()
                .task(TaskSupport::Required),
                |_: NoArgs| -> ToolResult {
                    let answer = elicit_as("user_name", "What is your name?", NAME_FORM)?;
                    thread::sleep(TASK_START);
                    Ok(Output::text(format!("Hello, {}!", name_of(&answer))))
                },
            )
    }
}

/// How long the task fixtures work before they ask or answer: longer than
/// the sync window of the conformance run's policy (300 ms), so that they
/// become tasks first.
const TASK_START: Duration = Duration::from_secs(1);

/// The form of `confirm_delete` and `multi_input`.
const CONFIRM_DELETE_FORM: &str =
    r#"{"type":"object","properties":{"confirm":{"type":"boolean"},"name":{"type":"string"}}}"#;

/// Arguments of `greet`.
#[derive(Deserialize, JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Arguments of `slow_compute`.
#[derive(Deserialize, JsonSchema)]
struct SlowArgs {
    /// How long to work, in seconds (at most 600).
    seconds: u64,
    /// Milliseconds more to work (at most 1000): a call of `seconds = 0`
    /// that still outlasts a zero `task_sync_window`, as the `store`
    /// benchmark's tasks do.
    millis: Option<u64>,
    /// A label for the result.
    label: Option<String>,
}

/// Arguments of `confirm_delete`.
#[derive(Deserialize, JsonSchema)]
struct DeleteArgs {
    /// The file to delete (nothing is deleted).
    filename: String,
}

export_plugin!(Conformance);

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_wasm_sdk::{Content, ResourceBody, serde_json};

    /// CRC-32 (ISO-HDLC, the one PNG uses), bit by bit.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = 0xffff_ffffu32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xedb8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    fn be32(b: &[u8]) -> u32 {
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    fn le32(b: &[u8]) -> u32 {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    fn call(name: &str, args: &str) -> Output {
        match Conformance::router().call(name, args) {
            Ok(out) => out,
            Err(e) => panic!("{name} failed: {e:?}"),
        }
    }

    #[test]
    fn png_is_a_well_formed_2x2_image() {
        assert_eq!(&PNG[..8], b"\x89PNG\r\n\x1a\n");
        let mut rest = &PNG[8..];
        let mut kinds = Vec::new();
        while !rest.is_empty() {
            let len = be32(rest) as usize;
            let (kind_and_data, crc) = (&rest[4..8 + len], be32(&rest[8 + len..]));
            assert_eq!(crc32(kind_and_data), crc, "chunk CRC");
            kinds.push(String::from_utf8_lossy(&kind_and_data[..4]).into_owned());
            if kinds.len() == 1 {
                assert_eq!(
                    (be32(&rest[8..]), be32(&rest[12..])),
                    (2, 2),
                    "width, height"
                );
            }
            rest = &rest[12 + len..];
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
    }

    #[test]
    fn wav_header_matches_its_samples() {
        let clip = wav(100);
        assert_eq!(&clip[..4], b"RIFF");
        assert_eq!(le32(&clip[4..]) as usize, clip.len() - 8);
        assert_eq!(&clip[8..16], b"WAVEfmt ");
        assert_eq!(le32(&clip[24..]), WAV_RATE);
        assert_eq!(&clip[36..40], b"data");
        assert_eq!(le32(&clip[40..]) as usize, clip.len() - 44);
        assert_eq!(clip.len() - 44, 800);
        // A tone, not silence.
        let (min, max) = clip[44..]
            .iter()
            .fold((u8::MAX, 0), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        assert!(min < 70 && max > 186, "{min}..{max}");
    }

    #[test]
    fn every_tool_has_a_description() {
        let tools = Conformance::router().list();
        assert!(tools.len() >= 10);
        for tool in tools {
            assert!(!tool.description().is_empty(), "{}", tool.name());
        }
    }

    #[test]
    fn json_schema_tool_keeps_2020_12_keywords() {
        let tools = Conformance::router().list();
        let tool = tools
            .iter()
            .find(|t| t.name() == "json_schema_2020_12_tool")
            .expect("listed");
        let schema: Value = serde_json::from_str(tool.input_schema().expect("schema")).unwrap();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert!(schema["$defs"]["address"].is_object());
        assert_eq!(schema["additionalProperties"], false);
        let out = call("json_schema_2020_12_tool", r#"{"name":"x"}"#);
        assert_eq!(
            out.content()[0].as_text(),
            Some(r#"Received: {"name":"x"}"#)
        );
    }

    #[test]
    fn forms_are_what_the_elicitation_scenarios_check() {
        let parse = |s: &str| -> Value { serde_json::from_str(s).expect("valid JSON") };
        let user = parse(USER_FORM);
        assert_eq!(user["required"], serde_json::json!(["username", "email"]));
        let defaults = parse(DEFAULTS_FORM);
        let p = &defaults["properties"];
        assert_eq!(p["name"]["default"], "John Doe");
        assert_eq!(p["age"]["type"], "integer");
        assert_eq!(p["age"]["default"], 30);
        assert_eq!(p["score"]["default"], 95.5);
        assert_eq!(p["status"]["default"], "active");
        assert!(
            p["status"]["enum"]
                .as_array()
                .unwrap()
                .contains(&p["status"]["default"])
        );
        assert_eq!(p["verified"]["default"], true);
        let enums = parse(ENUMS_FORM);
        let p = &enums["properties"];
        assert!(p["untitledSingle"]["enum"].is_array() && p["untitledSingle"]["oneOf"].is_null());
        assert!(p["titledSingle"]["enum"].is_null());
        for item in p["titledSingle"]["oneOf"].as_array().unwrap() {
            assert!(item["const"].is_string() && item["title"].is_string());
        }
        assert_eq!(
            p["legacyEnum"]["enum"].as_array().unwrap().len(),
            p["legacyEnum"]["enumNames"].as_array().unwrap().len()
        );
        assert_eq!(p["untitledMulti"]["items"]["type"], "string");
        for item in p["titledMulti"]["items"]["anyOf"].as_array().unwrap() {
            assert!(item["const"].is_string() && item["title"].is_string());
        }
    }

    #[test]
    fn content_tools_return_what_the_suite_checks() {
        assert_eq!(
            call("test_simple_text", "null").content()[0].as_text(),
            Some("This is a simple text response for testing.")
        );
        match &call("test_image_content", "{}").content()[0] {
            Content::Image {
                data, mime_type, ..
            } => assert_eq!((data.as_slice(), mime_type.as_str()), (PNG, "image/png")),
            other => panic!("{other:?}"),
        }
        match &call("test_audio_content", "{}").content()[0] {
            Content::Audio { mime_type, .. } => assert_eq!(mime_type, "audio/wav"),
            other => panic!("{other:?}"),
        }
        match &call("test_embedded_resource", "{}").content()[0] {
            Content::Resource {
                uri,
                mime_type,
                body: ResourceBody::Text(text),
                ..
            } => assert_eq!(
                (uri.as_str(), mime_type.as_deref(), text.as_str()),
                (
                    "test://embedded-resource",
                    Some("text/plain"),
                    "This is an embedded resource content."
                )
            ),
            other => panic!("{other:?}"),
        }
        let mixed = call("test_multiple_content_types", "{}");
        let kinds: Vec<&str> = mixed
            .content()
            .iter()
            .map(|c| match c {
                Content::Text { .. } => "text",
                Content::Image { .. } => "image",
                Content::Resource { .. } => "resource",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["text", "image", "resource"]);
        let error = call("test_error_handling", "{}");
        assert!(error.is_error());
        assert!(error.content()[0].as_text().is_some());
    }
}
