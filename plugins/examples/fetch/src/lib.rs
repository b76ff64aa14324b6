//! Example plugin: `fetch` gets a URL the host's policy allows and returns
//! it as Markdown (HTML converted) or raw text, a page of `max_length`
//! characters at a time from `start_index`, like the MCP "fetch" reference
//! server. It follows redirects itself, so the host checks every hop against
//! the policy.

mod fetcher;
mod markdown;
mod page;

use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::schemars;

/// Arguments of `fetch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FetchArgs {
    /// The http or https URL to fetch.
    url: String,
    /// The most characters to return (default 5000).
    #[serde(default = "defaults::usize::<5000>")]
    #[schemars(range(min = 1, max = 1_000_000))]
    max_length: usize,
    /// Where to start, in characters; use the `start_index` a truncated
    /// answer names to read on (default 0).
    #[serde(default)]
    start_index: usize,
    /// Return the content as it came, without converting HTML to Markdown
    /// (default false).
    #[serde(default)]
    raw: bool,
}

fn fetch(args: FetchArgs) -> ToolResult {
    let fetched = fetcher::fetch(&args.url)?;
    let html = !args.raw && markdown::is_html(fetched.content_type.as_deref(), &fetched.text);
    let mut prefix = String::new();
    let content = if html {
        markdown::convert(&fetched.text)
    } else {
        if !args.raw {
            prefix = format!(
                "Content type {} cannot be simplified to Markdown; here is the raw content:\n",
                fetched.content_type.as_deref().unwrap_or("(none)")
            );
        }
        fetched.text
    };
    let mut out = format!("{prefix}Contents of {}:\n", fetched.url);
    out.push_str(&page::slice(&content, args.start_index, args.max_length));
    if fetched.cut {
        out.push_str(&format!(
            "\n\n(The response was longer than {} MiB; only its beginning was read.)",
            fetcher::BODY_CAP >> 20
        ));
    }
    Ok(Output::text(out))
}

struct Fetch;

impl Plugin for Fetch {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new(
                "fetch",
                "Fetches a URL from the internet and returns its contents as Markdown \
                 (or raw with `raw`). Long pages come in parts of `max_length` characters: \
                 call again with the `start_index` the answer names to read on. \
                 Only URLs the server's policy allows can be fetched.",
            )
            .title("Fetch")
            .read_only()
            .open_world(true),
            fetch,
        )
    }
}

mcp_wasm_sdk::export_plugin!(Fetch);
