//! The MCP requests for what plugins serve besides tools: `resources/list`,
//! `resources/templates/list`, `resources/read`, `resources/(un)subscribe`,
//! `prompts/list`, `prompts/get` and `completion/complete`, each answered
//! from the runtime's catalog, as the connection's profile filters it (what
//! it leaves out is answered as what nothing serves). A read or a prompt runs its guest like a
//! tool call: its log messages and progress reach the client, and at
//! 2026-07-28 its requests to the client end it with `InputRequiredResult`
//! (SEP-2322) until the client has answered them.

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    InputRequiredResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    Reference,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use std::collections::BTreeMap;

use super::convert_served;
use super::cursor;
use super::revision::server_info_meta;
use super::server::McpServer;
use super::to_client::rounds::Round;
use crate::runtime::{CompletionTarget, FailureCause, ServeError};

/// The cursor's position of the `index`-th entry of a list that is not
/// sorted by name (templates): its index, zero-padded so positions sort.
fn position(index: usize) -> String {
    format!("{index:012}")
}

/// The range of a page of `len` entries after `cursor`, and whether more
/// follow; `names` gives each entry's cursor name (sorted).
fn page(
    names: &[&str],
    request: Option<PaginatedRequestParams>,
    size: usize,
) -> Result<(std::ops::Range<usize>, Option<String>), McpError> {
    let after = request
        .and_then(|r| r.cursor)
        .map(|c| cursor::decode(&c))
        .transpose()
        .map_err(|e| McpError::invalid_params(e.to_string(), None))?;
    let (range, more) = cursor::page(names, after.as_deref(), size);
    let next = more.then(|| cursor::encode(names[range.end - 1]));
    Ok((range, next))
}

impl McpServer {
    pub(super) async fn list_resources_page(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        self.other_lists_ready().await;
        let gate = self.gate(context)?;
        let catalog = self.runtime.catalog();
        let visible: Vec<_> = catalog
            .resources()
            .iter()
            .filter(|r| gate.admits_resource(&r.plugin, &r.info.uri) && gate.sees(&r.plugin))
            .collect();
        let names: Vec<&str> = visible.iter().map(|r| r.info.uri.as_str()).collect();
        let (range, next) = page(&names, request, self.options.page_size)?;
        let mut result = ListResourcesResult::with_all_items(
            visible[range]
                .iter()
                .map(|r| convert_served::resource(&r.info))
                .collect(),
        );
        result.next_cursor = next;
        self.list_hints(
            context,
            &mut result.ttl_ms,
            &mut result.cache_scope,
            &mut result.meta,
        );
        Ok(result)
    }

    pub(super) async fn list_templates_page(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        self.other_lists_ready().await;
        let gate = self.gate(context)?;
        let catalog = self.runtime.catalog();
        let visible: Vec<_> = catalog
            .templates()
            .iter()
            .filter(|t| {
                gate.admits_resource(&t.plugin, &t.info.uri_template) && gate.sees(&t.plugin)
            })
            .collect();
        let positions: Vec<String> = (0..visible.len()).map(position).collect();
        let names: Vec<&str> = positions.iter().map(String::as_str).collect();
        let (range, next) = page(&names, request, self.options.page_size)?;
        let mut result = ListResourceTemplatesResult::with_all_items(
            visible[range]
                .iter()
                .map(|t| convert_served::template(&t.info))
                .collect(),
        );
        result.next_cursor = next;
        self.list_hints(
            context,
            &mut result.ttl_ms,
            &mut result.cache_scope,
            &mut result.meta,
        );
        Ok(result)
    }

    pub(super) async fn list_prompts_page(
        &self,
        request: Option<PaginatedRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        self.other_lists_ready().await;
        let gate = self.gate(context)?;
        let catalog = self.runtime.catalog();
        let visible: Vec<_> = catalog
            .prompts()
            .iter()
            .filter(|p| gate.admits_prompt(&p.plugin, &p.name) && gate.sees(&p.plugin))
            .collect();
        let names: Vec<&str> = visible.iter().map(|p| p.name.as_str()).collect();
        let (range, next) = page(&names, request, self.options.page_size)?;
        let mut result = ListPromptsResult::with_all_items(
            visible[range]
                .iter()
                .map(|p| convert_served::prompt(&p.name, &p.info))
                .collect(),
        );
        result.next_cursor = next;
        self.list_hints(
            context,
            &mut result.ttl_ms,
            &mut result.cache_scope,
            &mut result.meta,
        );
        Ok(result)
    }

    pub(super) async fn read(
        &self,
        mut request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        self.runtime.wait_until_loaded().await;
        let gate = self.gate(&context)?;
        self.options.served.check_uri(&request.uri)?;
        // Matched once, off the async workers when it may take a while.
        let plugin = self.runtime.resource_plugin(&request.uri).await;
        // A URI the profile leaves out reads as one nothing serves.
        let plugin = plugin.filter(|p| gate.admits_resource(p, &request.uri));
        if let Some(plugin) = &plugin
            && let Err(denied) = gate.plugin(plugin)
        {
            return Err(gate.refusal(&format!("resource {:?}", request.uri), &denied));
        }
        let what = format!("resources/read {}", request.uri);
        let digest = || {
            plugin
                .as_ref()
                .map(|p| p.digest.to_string())
                .unwrap_or_default()
        };
        let run = self.run_events(
            &context,
            &what,
            digest,
            None,
            request.request_state.as_deref(),
            request.input_responses.take(),
        )?;
        let result = tokio::select! {
            r = self.runtime.read_resource(plugin.clone(), &request.uri, &self.caller, run.events.clone()) => r,
            () = context.ct.cancelled() => {
                run.forwarder.finish().await;
                return Err(McpError::internal_error("the read was cancelled", None));
            }
        };
        run.forwarder.finish().await;
        let parts = match result {
            Ok(parts) => parts,
            Err(e) => return self.input_or_error(e, run.round.as_deref()).map(Into::into),
        };
        let mut result = ReadResourceResult::new(parts.iter().map(convert_served::part).collect());
        self.list_hints(
            &context,
            &mut result.ttl_ms,
            &mut result.cache_scope,
            &mut result.meta,
        );
        // A read's contents are the plugin's, the same for every client.
        Ok(result.into())
    }

    pub(super) async fn get(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        self.runtime.wait_until_loaded().await;
        let gate = self.gate(&context)?;
        if let Some(prompt) = self.runtime.catalog().prompt(&request.name) {
            if !gate.admits_prompt(&prompt.plugin, &prompt.name) {
                return Err(convert_served::error(&ServeError::prompt_not_found(
                    &request.name,
                )));
            }
            if let Err(denied) = gate.plugin(&prompt.plugin) {
                return Err(gate.refusal(&format!("prompt {:?}", request.name), &denied));
            }
        }
        let mut arguments = BTreeMap::new();
        for (name, value) in request.arguments.iter().flatten() {
            let Some(value) = value.as_str() else {
                return Err(McpError::invalid_params(
                    format!("the prompt argument {name:?} must be a string"),
                    None,
                ));
            };
            arguments.insert(name.clone(), value.to_owned());
        }
        let what = format!("prompts/get {}", request.name);
        let digest = || {
            self.runtime
                .catalog()
                .prompt(&request.name)
                .map(|p| p.plugin.digest.to_string())
                .unwrap_or_default()
        };
        let run = self.run_events(
            &context,
            &what,
            digest,
            request.arguments.as_ref(),
            request.request_state.as_deref(),
            request.input_responses.take(),
        )?;
        let result = tokio::select! {
            r = self.runtime.get_prompt(&request.name, arguments, &self.caller, run.events.clone()) => r,
            () = context.ct.cancelled() => {
                run.forwarder.finish().await;
                return Err(McpError::internal_error("the request was cancelled", None));
            }
        };
        run.forwarder.finish().await;
        match result {
            Ok(output) => {
                let mut result = convert_served::prompt_result(&output);
                if run.round.is_some() {
                    server_info_meta(&mut result.meta);
                }
                Ok(result.into())
            }
            Err(e) => self.input_or_error(e, run.round.as_deref()).map(Into::into),
        }
    }

    /// The `InputRequiredResult` of a run that waits for the client, or the
    /// JSON-RPC error of a failed one.
    fn input_or_error(
        &self,
        error: ServeError,
        round: Option<&Round>,
    ) -> Result<InputRequiredResult, McpError> {
        match (&error, round) {
            (ServeError::Failed(f), Some(round)) if f.cause == FailureCause::InputDeferred => {
                let mut input = round
                    .input_required()
                    .map_err(|why| McpError::internal_error(why.to_string(), None))?;
                server_info_meta(&mut input.meta);
                Ok(input)
            }
            (ServeError::Failed(f), Some(_)) => match &f.cause {
                FailureCause::MissingClientCapability(kinds) => {
                    Err(McpError::missing_required_client_capability(
                        super::to_client::requests::capabilities(kinds),
                    ))
                }
                _ => Err(convert_served::error(&error)),
            },
            _ => Err(convert_served::error(&error)),
        }
    }

    pub(super) async fn complete_argument(
        &self,
        request: CompleteRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        self.runtime.wait_until_loaded().await;
        let gate = self.gate(context)?;
        let target = match &request.r#ref {
            Reference::Prompt(p) => CompletionTarget::Prompt(p.name.clone()),
            Reference::Resource(r) => {
                self.options.served.check_uri(&r.uri)?;
                CompletionTarget::Template(r.uri.clone())
            }
            _ => {
                return Err(McpError::invalid_params(
                    "completion/complete completes prompt arguments (ref/prompt) and resource template variables (ref/resource)",
                    None,
                ));
            }
        };
        let catalog = self.runtime.catalog();
        let (plugin, admitted) = match &target {
            CompletionTarget::Prompt(name) => match catalog.prompt(name) {
                Some(p) => (Some(&p.plugin), gate.admits_prompt(&p.plugin, name)),
                None => (None, true),
            },
            CompletionTarget::Template(uri) => match catalog.template(uri) {
                Some(t) => (Some(&t.plugin), gate.admits_resource(&t.plugin, uri)),
                None => (None, true),
            },
        };
        if !admitted {
            // As for a prompt or template nothing serves.
            return Err(convert_served::error(&ServeError::not_found(&target)));
        }
        if let Some(plugin) = plugin
            && let Err(denied) = gate.plugin(plugin)
        {
            return Err(gate.refusal("completion/complete", &denied));
        }
        let context: BTreeMap<String, String> = request
            .context
            .as_ref()
            .and_then(|c| c.arguments.clone())
            .unwrap_or_default()
            .into_iter()
            .collect();
        let completion = self
            .runtime
            .complete(
                &target,
                &request.argument.name,
                &request.argument.value,
                context,
                &self.caller,
            )
            .await
            .map_err(|e| convert_served::error(&e))?;
        Ok(convert_served::completion(&completion))
    }
}
