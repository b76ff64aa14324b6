//! An rmcp server of your own that adds sandboxed WebAssembly tools with
//! `mcp-wasm-host-runtime`: every component in a directory becomes a tool
//! beside the server's own `plugins` tool, and each call runs in a fresh
//! sandboxed instance under the default limits (fuel, memory, a deadline,
//! nothing of the host granted). A guest that traps is an `isError` result.
//!
//! `cargo run -p embed-example -- DIR` serves DIR's `*.wasm` over stdio.

use std::sync::Arc;

use mcp_wasm_host_runtime::{
    CallError, Caller, Content, DefaultPolicies, EngineSettings, NoEvents, Runtime, ToolOutput,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt as _, service::RequestContext};

/// The plugins' runtime, and the stdio connection's one client (a caller).
struct Server {
    runtime: Runtime,
    caller: Caller,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // No arguments: an object schema (clients require `type`).
        let none = Arc::new(serde_json::Map::from_iter([(
            "type".into(),
            "object".into(),
        )]));
        let mut tools = vec![Tool::new("plugins", "Names the plugins.", none)];
        for t in self.runtime.catalog().tools() {
            let schema = Arc::new(t.input_schema.clone());
            tools.push(Tool::new(t.name.clone(), t.description.clone(), schema));
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name == "plugins" {
            let catalog = self.runtime.catalog();
            let names: Vec<&str> = catalog.plugins().iter().map(|p| &*p.name).collect();
            let text = ContentBlock::text(names.join(" "));
            return Ok(CallToolResult::success(vec![text]).into());
        }
        let (runtime, events) = (&self.runtime, Arc::new(NoEvents));
        let called = runtime.call(&request.name, request.arguments, &self.caller, events);
        result(called.await.result).map(Into::into)
    }
}

/// A call's outcome as MCP's: the guest's content (text only, here), or why
/// it failed (bad arguments, a trap, a limit reached) for the model to see.
fn result(called: Result<ToolOutput, CallError>) -> Result<CallToolResult, ErrorData> {
    let text = |c: Content| match c {
        Content::Text { text, .. } => ContentBlock::text(text),
        other => ContentBlock::text(format!("{other:?}")),
    };
    match called {
        Ok(out) => {
            let mut result = CallToolResult::success(out.content.into_iter().map(text).collect());
            result.is_error = Some(out.is_error);
            Ok(result)
        }
        Err(e @ CallError::UnknownTool(_)) => Err(ErrorData::invalid_params(e.to_string(), None)),
        Err(e) => Ok(CallToolResult::error(vec![ContentBlock::text(
            e.to_string(),
        )])),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: embed-example DIR")?;
    let policies = Arc::new(DefaultPolicies::default());
    let runtime = Runtime::new(&EngineSettings::default(), policies)?;
    for error in runtime.load_dir(dir.as_ref()).await?.failed {
        eprintln!("not loaded: {error}");
    }
    let caller = Caller::new();
    let served = Server { runtime, caller }.serve(rmcp::transport::stdio());
    served.await?.waiting().await?;
    Ok(())
}
