//! Test plugin: tries to hand its exposed secret (the environment variable
//! `LEAK`) to the client through every surface a guest has: a tool's text,
//! structured content, embedded resource, blob, image and link; a task's
//! progress, input request and result; progress; a resource read (text and blob); a prompt; a
//! completion; and sampling and elicitation requests. Each takes the
//! encoding to use (`how`: `exact`, `json`, `base64`, `base64url`,
//! `percent`, `percent_lower`) and how many bytes of padding go before the
//! secret (`pad`, for base64's three alignments), so the tests can check
//! that the host redacts each form wherever it appears.

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use mcp_wasm_sdk::client::{self, CreateMessage};
use mcp_wasm_sdk::prelude::*;

/// What every leak sends: `pad` bytes, the secret, then a tail, encoded.
fn encode(how: &str, pad: usize) -> String {
    let secret = std::env::var("LEAK").unwrap_or_default();
    let plain = format!("{}{secret} end", "x".repeat(pad));
    match how {
        // As a JSON encoder that escapes `/` writes it into a string.
        "json" => {
            let json = serde_json::to_string(&plain).unwrap_or_default();
            json.trim_matches('"').replace('/', "\\/")
        }
        "base64" => STANDARD.encode(&plain),
        "base64url" => URL_SAFE_NO_PAD.encode(&plain),
        "percent" | "percent_lower" => plain
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                    char::from(b).to_string()
                } else if how == "percent" {
                    format!("%{b:02X}")
                } else {
                    format!("%{b:02x}")
                }
            })
            .collect(),
        _ => plain,
    }
}

/// Arguments of every leaking tool.
#[derive(Deserialize, JsonSchema)]
struct Leak {
    /// The encoding.
    how: String,
    /// Bytes before the secret.
    pad: usize,
    /// Where the tool `leak` puts it: `text`, `structured`, `embedded`,
    /// `blob`, `image` or `link`.
    #[serde(default)]
    surface: String,
}

/// The padding a URI variable or prompt argument gives.
fn pad(vars: &Vars) -> usize {
    vars.get("pad").and_then(|p| p.parse().ok()).unwrap_or(0)
}

fn how(vars: &Vars) -> &str {
    vars.get("how").map_or("exact", String::as_str)
}

struct Leaker;

impl Plugin for Leaker {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new("leak", "Returns the secret on the surface asked for."),
                |args: Leak| -> ToolResult {
                    let s = encode(&args.how, args.pad);
                    Ok(match args.surface.as_str() {
                        "structured" => Output::json(&serde_json::json!({
                            "nested": {"list": [s.clone(), 1]},
                            s.clone(): "the secret as a key",
                        })),
                        "embedded" => Output::resource_text("leak://embedded", "text/plain", s),
                        "blob" => Output::resource_blob(
                            "leak://blob",
                            "application/octet-stream",
                            s.into_bytes(),
                        ),
                        "image" => Output::image(s.into_bytes(), "image/png"),
                        "link" => Output::resource_link(format!("leak://{s}"), s),
                        _ => Output::text(s),
                    })
                },
            )
            .tool(
                ToolDef::new(
                    "leak_task",
                    "Runs only as a task: reports progress with the secret, asks the \
                     client's user with it, then returns it.",
                )
                .task(TaskSupport::Required),
                |args: Leak| -> ToolResult {
                    // Outlast a zero sync window, so that the call becomes a
                    // task before it reports or asks anything.
                    std::thread::sleep(std::time::Duration::from_millis(300));
                    let s = encode(&args.how, args.pad);
                    progress(1.0, Some(2.0), Some(&s));
                    let answer = client::elicit(&s, r#"{"type":"object","properties":{}}"#)?;
                    Ok(Output::text(format!("{s} ({})", answer.action)))
                },
            )
            .tool(
                ToolDef::new(
                    "leak_progress",
                    "Reports progress whose message is the secret, then returns.",
                ),
                |args: Leak| -> ToolResult {
                    progress(1.0, Some(2.0), Some(&encode(&args.how, args.pad)));
                    Ok(Output::text("reported"))
                },
            )
            .tool(
                ToolDef::new("leak_sample", "Asks the client's model with the secret."),
                |args: Leak| -> ToolResult {
                    let s = encode(&args.how, args.pad);
                    let reply = CreateMessage::new(10)
                        .user(s.clone())
                        .system_prompt(s)
                        .send()?;
                    Ok(Output::text(format!("sampled: {}", reply.text())))
                },
            )
            .tool(
                ToolDef::new("leak_elicit", "Asks the client's user with the secret."),
                |args: Leak| -> ToolResult {
                    let s = encode(&args.how, args.pad);
                    let schema = serde_json::json!({
                        "type": "object",
                        "properties": {"answer": {"type": "string", "description": s}},
                    });
                    let answer = client::elicit(&s, &schema.to_string())?;
                    Ok(Output::text(format!("elicited: {}", answer.action)))
                },
            )
            .template(
                TemplateDef::new("leak://text/{how}/{pad}", "leak-text").mime_type("text/plain"),
                |uri: &str, vars: &Vars| -> ResourceResult {
                    Ok(Contents::text(
                        uri,
                        "text/plain",
                        encode(how(vars), pad(vars)),
                    ))
                },
            )
            .template(
                TemplateDef::new("leak://blob/{how}/{pad}", "leak-blob")
                    .mime_type("application/octet-stream"),
                |uri: &str, vars: &Vars| -> ResourceResult {
                    let s = encode(how(vars), pad(vars));
                    Ok(Contents::blob(
                        uri,
                        "application/octet-stream",
                        s.into_bytes(),
                    ))
                },
            )
            .prompt(
                PromptDef::new("leak", "A prompt whose message is the secret.")
                    .argument("how", "The encoding.", true)
                    .argument("pad", "Bytes before the secret.", true),
                |args: &Vars| -> PromptResult {
                    let s = encode(how(args), pad(args));
                    Ok(Messages::new().description(s.clone()).user(Output::text(s)))
                },
            )
            .complete_prompt("leak", "how", |typed: &str, context: &Vars| {
                vec![encode(typed, pad(context))]
            })
    }
}

mcp_wasm_sdk::export_plugin!(Leaker);
