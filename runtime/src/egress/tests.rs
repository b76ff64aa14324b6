//! Unit tests of `runtime::egress`.
use std::sync::Mutex;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::json;

use super::*;
use crate::call::events::{SamplingContent, SamplingMessage, SamplingRole};
use crate::capabilities::secrets::{REDACTED, SecretsPolicy};
use crate::definitions::icons::Icon;
use crate::definitions::output::{Audience, Content, ContentHints, ResourceBody, ToolOutput};
use crate::definitions::output::{TaskSupport, ToolHints};
use crate::definitions::schema::Schema;
use crate::definitions::served::{
    Completion, PromptArgument, PromptInfo, PromptOutput, ResourceInfo, ResourcePart, TemplateInfo,
    ViewCsp, ViewSettings,
};
use crate::egress::outbound::Field;

const SECRET: &str = "sk-live/4f+9Qz=\"x\"";

fn grants(secrets: &[(&str, &str)]) -> Arc<Grants> {
    Arc::new(Grants {
        secrets: SecretsPolicy::for_tests(secrets, false),
        ..Grants::default()
    })
}

/// The secret as a guest might hand it over, by another encoder than
/// the redactor's: the text around it, and what must not remain.
fn embeddings() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (before, after) in [("", ""), ("a", " b"), ("ab", "\n"), ("token: ", "…")] {
        let plain = format!("{before}{SECRET}{after}");
        out.push((plain.clone(), SECRET.to_string()));
        let json = serde_json::to_string(&plain).unwrap();
        out.push((
            json.clone(),
            serde_json::to_string(SECRET)
                .unwrap()
                .trim_matches('"')
                .into(),
        ));
        let percent: String = plain.bytes().map(|b| format!("%{b:02x}")).collect();
        let needle: String = SECRET.bytes().map(|b| format!("%{b:02x}")).collect();
        out.push((percent, needle));
        let encoded = STANDARD.encode(&plain);
        let first = (8 * before.len()).div_ceil(6);
        let end = 8 * (before.len() + SECRET.len()) / 6;
        out.push((encoded.clone(), encoded[first + 1..end - 1].to_string()));
    }
    out
}

/// Every product type, with `s` in one field each (`b`: as bytes).
fn products(s: &str) -> Vec<(String, Box<dyn Outbound>)> {
    let b = s.as_bytes().to_vec();
    let hints = Some(ContentHints {
        audience: vec![Audience::User],
        priority: None,
        last_modified: Some(s.into()),
    });
    let blocks = vec![
        Content::text(s),
        Content::Text {
            text: "t".into(),
            hints: hints.clone(),
        },
        Content::Image {
            data: b.clone(),
            mime_type: "image/png".into(),
            hints: None,
        },
        Content::Audio {
            data: b.clone(),
            mime_type: s.into(),
            hints: None,
        },
        Content::Resource {
            uri: "x://r".into(),
            mime_type: Some(s.into()),
            body: ResourceBody::Text(s.into()),
            hints: None,
        },
        Content::Resource {
            uri: s.into(),
            mime_type: None,
            body: ResourceBody::Blob(b.clone()),
            hints: None,
        },
        Content::ResourceLink {
            uri: s.into(),
            name: s.into(),
            title: Some(s.into()),
            description: Some(s.into()),
            mime_type: Some(s.into()),
            size: Some(1),
            hints,
        },
    ];
    let mut out: Vec<(String, Box<dyn Outbound>)> = Vec::new();
    for (i, block) in blocks.into_iter().enumerate() {
        out.push((
            format!("tool content block {i}"),
            Box::new(ToolOutput {
                content: vec![block.clone()],
                ..ToolOutput::default()
            }),
        ));
        out.push((
            format!("prompt message {i}"),
            Box::new(PromptOutput {
                description: None,
                messages: vec![(Audience::Assistant, block)],
            }),
        ));
    }
    for structured in [
        json!(s),
        json!({"a": {"b": [1, s]}}),
        json!({s: 1}),
        json!([[[{"k": [s, s]}]]]),
    ] {
        out.push((
            format!("structured content {structured}"),
            Box::new(ToolOutput {
                structured: Some(structured),
                ..ToolOutput::default()
            }),
        ));
    }
    for body in [ResourceBody::Text(s.into()), ResourceBody::Blob(b.clone())] {
        out.push((
            "resource contents".into(),
            Box::new(vec![ResourcePart {
                uri: "x://r".into(),
                mime_type: None,
                body,
                view: None,
            }]),
        ));
    }
    out.push((
        "prompt description".into(),
        Box::new(PromptOutput {
            description: Some(s.into()),
            messages: Vec::new(),
        }),
    ));
    out.push((
        "completion value".into(),
        Box::new(Completion {
            values: vec!["other".into(), s.into()],
            total: None,
            has_more: false,
        }),
    ));
    let message = |content| SamplingMessage {
        role: SamplingRole::User,
        content: vec![content],
    };
    let sampling = SamplingRequest {
        messages: Vec::new(),
        system_prompt: None,
        max_tokens: 1,
        temperature: None,
        stop_sequences: Vec::new(),
        model_preferences: None,
        include_context: None,
    };
    for request in [
        SamplingRequest {
            messages: vec![message(SamplingContent::Text(s.into()))],
            ..sampling.clone()
        },
        SamplingRequest {
            messages: vec![message(SamplingContent::Image {
                data: b.clone(),
                mime_type: "image/png".into(),
            })],
            ..sampling.clone()
        },
        SamplingRequest {
            system_prompt: Some(s.into()),
            stop_sequences: vec![s.into()],
            ..sampling.clone()
        },
    ] {
        out.push(("sampling request".into(), Box::new(request)));
    }
    for request in [
        ElicitationRequest {
            message: s.into(),
            requested_schema: json!({}),
        },
        ElicitationRequest {
            message: "m".into(),
            requested_schema: json!({"properties": {"a": {"description": s, "default": s}}}),
        },
    ] {
        out.push(("elicitation request".into(), Box::new(request)));
    }
    out.push((
        "progress message".into(),
        Box::new(Progress {
            progress: 1.0,
            total: None,
            message: Some(s.into()),
        }),
    ));
    out.extend(listed(s));
    out
}

/// What a plugin lists at load, with `s` in one field each.
fn listed(s: &str) -> Vec<(String, Box<dyn Outbound>)> {
    let schema = |v: serde_json::Value| Schema::compile_object("input schema", &v.to_string());
    let plain = || schema(json!({"type": "object"})).unwrap();
    let tool = || PluginTool {
        name: "t".into(),
        title: None,
        description: "d".into(),
        input: plain(),
        output: None,
        hints: ToolHints::default(),
        icons: Vec::new(),
        task_support: TaskSupport::Forbidden,
    };
    let icon = |src: &str, mime: Option<&str>, size: &str| Icon {
        src: src.into(),
        mime_type: mime.map(Into::into),
        sizes: vec![size.into()],
        theme: None,
    };
    let mut out: Vec<(String, Box<dyn Outbound>)> = Vec::new();
    let mut tools = vec![
        PluginTool {
            title: Some(s.into()),
            ..tool()
        },
        PluginTool {
            description: s.into(),
            ..tool()
        },
        PluginTool {
            hints: ToolHints {
                title: Some(s.into()),
                ..ToolHints::default()
            },
            ..tool()
        },
        PluginTool {
            icons: vec![icon(s, None, "any")],
            ..tool()
        },
        PluginTool {
            icons: vec![icon("https://x", Some(s), "any")],
            ..tool()
        },
        PluginTool {
            icons: vec![icon("https://x", None, s)],
            ..tool()
        },
        PluginTool {
            output: Some(Arc::new(
                schema(json!({"type": "object", "description": s})).unwrap(),
            )),
            ..tool()
        },
    ];
    for input in [
        json!({"type": "object", "description": s}),
        json!({"type": "object", "properties": {s: {"type": "string"}}}),
        json!({"type": "object", "properties": {"a": {"enum": ["b", s], "default": s}}}),
        json!({"type": "object", "$comment": s, "examples": [{"a": s}]}),
    ] {
        // A schema the compiler refuses (a key it reads) is not a case.
        if let Ok(input) = schema(input) {
            tools.push(PluginTool { input, ..tool() });
        }
    }
    for (i, t) in tools.into_iter().enumerate() {
        out.push((format!("listed tool {i}"), Box::new(vec![t])));
    }
    let resource = ResourceInfo {
        uri: "x://r".into(),
        name: "n".into(),
        title: None,
        description: None,
        mime_type: None,
        size: None,
        hints: None,
        icons: Vec::new(),
        view: None,
    };
    let template = TemplateInfo {
        uri_template: "x://r/{a}".into(),
        pattern: crate::definitions::uri_match::UriPattern::compile("x://r/{a}").unwrap(),
        name: "n".into(),
        title: None,
        description: None,
        mime_type: None,
        hints: None,
        icons: Vec::new(),
    };
    let prompt = PromptInfo {
        name: "p".into(),
        title: None,
        description: None,
        arguments: Vec::new(),
        icons: Vec::new(),
    };
    let argument = PromptArgument {
        name: "a".into(),
        title: None,
        description: None,
        required: false,
    };
    let hints = Some(ContentHints {
        audience: Vec::new(),
        priority: None,
        last_modified: Some(s.into()),
    });
    let csp = ViewCsp {
        connect_domains: vec![s.into()],
        ..ViewCsp::default()
    };
    let resources = [
        ResourceInfo {
            name: s.into(),
            ..resource.clone()
        },
        ResourceInfo {
            title: Some(s.into()),
            ..resource.clone()
        },
        ResourceInfo {
            description: Some(s.into()),
            ..resource.clone()
        },
        ResourceInfo {
            mime_type: Some(s.into()),
            ..resource.clone()
        },
        ResourceInfo {
            hints: hints.clone(),
            ..resource.clone()
        },
        ResourceInfo {
            icons: vec![icon(s, None, "any")],
            ..resource.clone()
        },
        ResourceInfo {
            view: Some(ViewSettings {
                csp: Some(csp),
                ..ViewSettings::default()
            }),
            ..resource.clone()
        },
        ResourceInfo {
            view: Some(ViewSettings {
                domain: Some(s.into()),
                ..ViewSettings::default()
            }),
            ..resource.clone()
        },
    ];
    let templates = [
        TemplateInfo {
            name: s.into(),
            ..template.clone()
        },
        TemplateInfo {
            title: Some(s.into()),
            ..template.clone()
        },
        TemplateInfo {
            description: Some(s.into()),
            ..template.clone()
        },
        TemplateInfo {
            mime_type: Some(s.into()),
            ..template.clone()
        },
        TemplateInfo {
            hints,
            ..template.clone()
        },
        TemplateInfo {
            icons: vec![icon(s, None, "any")],
            ..template.clone()
        },
    ];
    let prompts = [
        PromptInfo {
            title: Some(s.into()),
            ..prompt.clone()
        },
        PromptInfo {
            description: Some(s.into()),
            ..prompt.clone()
        },
        PromptInfo {
            icons: vec![icon(s, None, "any")],
            ..prompt.clone()
        },
        PromptInfo {
            arguments: vec![PromptArgument {
                title: Some(s.into()),
                ..argument.clone()
            }],
            ..prompt.clone()
        },
        PromptInfo {
            arguments: vec![PromptArgument {
                description: Some(s.into()),
                ..argument
            }],
            ..prompt
        },
    ];
    for (i, r) in resources.into_iter().enumerate() {
        out.push((
            format!("listed resource {i}"),
            Box::new(Served {
                resources: vec![r],
                ..Served::default()
            }),
        ));
    }
    for (i, t) in templates.into_iter().enumerate() {
        out.push((
            format!("listed template {i}"),
            Box::new(Served {
                templates: vec![t],
                ..Served::default()
            }),
        ));
    }
    for (i, p) in prompts.into_iter().enumerate() {
        out.push((
            format!("listed prompt {i}"),
            Box::new(Served {
                prompts: vec![p],
                ..Served::default()
            }),
        ));
    }
    out
}

/// Every text the client would receive from `product`: its texts,
/// its JSON's strings and keys, and its bytes as text.
fn texts(product: &mut dyn Outbound) -> Vec<String> {
    fn json(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(a) => a.iter().for_each(|v| json(v, out)),
            serde_json::Value::Object(m) => m.iter().for_each(|(k, v)| {
                out.push(k.clone());
                json(v, out);
            }),
            _ => {}
        }
    }
    let mut out = Vec::new();
    product.fields(&mut |field| match field {
        Field::Text(t) => out.push(t.clone()),
        Field::Bytes(b) => out.push(String::from_utf8_lossy(b).into_owned()),
        Field::Json(v) => json(v, &mut out),
    });
    out
}

#[test]
fn every_surface_in_every_encoding_at_every_position_is_redacted() {
    let grants = grants(&[("A", SECRET), ("B", "another-secret-value")]);
    let mut cases = 0;
    for (embedded, needle) in embeddings() {
        for (surface, mut product) in products(&embedded) {
            let case = format!("{surface}: {embedded:?}");
            let before = texts(&mut *product);
            assert!(before.iter().any(|t| t.contains(&needle)), "{case}");
            result(&grants, &mut product);
            let after = texts(&mut *product);
            assert!(
                after.iter().all(|t| !t.contains(&needle)),
                "{case}: {after:?}"
            );
            assert!(
                after.iter().any(|t| t.contains(REDACTED)),
                "{case}: {after:?}"
            );
            cases += 1;
        }
    }
    assert_eq!(cases, embeddings().len() * products("").len());
}

#[test]
fn without_secrets_nothing_is_walked_or_wrapped() {
    let none = grants(&[]);
    assert!(!none.rewrites_outbound());
    let mut walked = Walked(false);
    result(&none, &mut walked);
    assert!(!walked.0, "a product was walked with no secrets");
    let inner: Arc<dyn CallEvents> = Arc::new(Recorder::default());
    let wrapped = events(&none, inner.clone());
    assert!(Arc::ptr_eq(&inner, &wrapped));
    // With a secret, the product is walked.
    result(&grants(&[("A", SECRET)]), &mut walked);
    assert!(walked.0);
}

struct Walked(bool);

impl Outbound for Walked {
    fn fields(&mut self, _: &mut dyn FnMut(Field<'_>)) {
        self.0 = true;
    }
}

/// Records what reaches the transport.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn push(&self, what: String) {
        self.0.lock().unwrap().push(what);
    }
}

impl CallEvents for Recorder {
    fn log(&self, _: &str, _: &str, _: LogLevel, message: &str) {
        self.push(message.into());
    }
    fn progress(&self, _: &str, _: &str, progress: Progress) {
        self.push(format!("{progress:?}"));
    }
    fn create_message(
        &self,
        at: RequestAt<'_>,
        request: SamplingRequest,
    ) -> BoxFuture<'_, Result<SampledMessage, ClientRequestError>> {
        self.push(format!("{} {request:?}", at.key));
        Box::pin(async { Err(ClientRequestError::Failed("recorded".into())) })
    }
    fn elicit(
        &self,
        at: RequestAt<'_>,
        request: ElicitationRequest,
    ) -> BoxFuture<'_, Result<Elicitation, ClientRequestError>> {
        self.push(format!("{} {request:?}", at.key));
        Box::pin(async { Err(ClientRequestError::Failed("recorded".into())) })
    }
    fn list_roots(
        &self,
        at: RequestAt<'_>,
    ) -> BoxFuture<'_, Result<Vec<Root>, ClientRequestError>> {
        self.push(at.key.into());
        Box::pin(async { Ok(Vec::new()) })
    }
}

#[test]
fn what_a_guest_sends_while_it_runs_crosses_the_boundary() {
    let recorder = Arc::new(Recorder::default());
    let wrapped = events(&grants(&[("A", SECRET)]), recorder.clone());
    let at = RequestAt {
        plugin: "p",
        tool: "t",
        key: SECRET,
    };
    wrapped.progress(
        "p",
        "t",
        Progress {
            progress: 1.0,
            total: None,
            message: Some(format!("at {SECRET}")),
        },
    );
    let sampling = SamplingRequest {
        messages: vec![SamplingMessage {
            role: SamplingRole::User,
            content: vec![SamplingContent::Text(STANDARD.encode(SECRET))],
        }],
        system_prompt: Some(SECRET.into()),
        max_tokens: 1,
        temperature: None,
        stop_sequences: Vec::new(),
        model_preferences: None,
        include_context: None,
    };
    let elicitation = ElicitationRequest {
        message: SECRET.into(),
        requested_schema: json!({"title": SECRET}),
    };
    futures::executor::block_on(async {
        let _ = wrapped.create_message(at, sampling).await;
        let _ = wrapped.elicit(at, elicitation).await;
        let _ = wrapped.list_roots(at).await;
    });
    let seen = recorder.0.lock().unwrap().clone();
    assert_eq!(seen.len(), 4, "{seen:?}");
    for line in &seen {
        assert!(
            !line.contains("sk-live") && !line.contains(&STANDARD.encode(SECRET)[..12]),
            "{line}"
        );
        assert!(line.contains(REDACTED), "{line}");
    }
}
