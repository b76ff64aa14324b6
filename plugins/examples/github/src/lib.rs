//! Example plugin: a small GitHub issues client. `list_issues` and
//! `create_issue` call the REST API at `https://api.github.com` (or at
//! `GITHUB_API_URL` when the policy sets it). The plugin never holds a
//! token: the host's policy injects `Authorization` into requests to the
//! API's origin.

mod api;

use mcp_wasm_sdk::prelude::*;

/// An issue's state filter.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum StateFilter {
    /// Open issues only.
    #[default]
    Open,
    /// Closed issues only.
    Closed,
    /// Both.
    All,
}

impl StateFilter {
    fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Closed => "closed",
            Self::All => "all",
        }
    }
}

/// Arguments of `list_issues`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    /// The repository's owner (user or organization).
    owner: String,
    /// The repository's name.
    repo: String,
    /// Which issues: `open` (default), `closed` or `all`.
    #[serde(default)]
    state: StateFilter,
}

/// Arguments of `create_issue`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateArgs {
    /// The repository's owner (user or organization).
    owner: String,
    /// The repository's name.
    repo: String,
    /// The issue's title.
    title: String,
    /// The issue's body, in Markdown.
    #[serde(default)]
    body: Option<String>,
}

/// The result of `list_issues`.
#[derive(Debug, Serialize, JsonSchema)]
struct Issues {
    /// The issues (pull requests left out), newest first.
    issues: Vec<api::Issue>,
}

struct GitHub;

impl Plugin for GitHub {
    fn router() -> Router {
        Router::new()
            .json_tool(
                ToolDef::new(
                    "list_issues",
                    "Lists the issues of a GitHub repository (number, title, state, URL).",
                )
                .title("List GitHub issues")
                .read_only()
                .open_world(true),
                |args: ListArgs| -> Result<Issues, ToolError> {
                    let issues = api::Api::from_env()?.list_issues(
                        &args.owner,
                        &args.repo,
                        args.state.as_str(),
                    )?;
                    Ok(Issues { issues })
                },
            )
            .json_tool(
                ToolDef::new(
                    "create_issue",
                    "Creates an issue in a GitHub repository; returns its number and URL.",
                )
                .title("Create a GitHub issue")
                .destructive(false)
                .open_world(true),
                |args: CreateArgs| -> Result<api::Issue, ToolError> {
                    api::Api::from_env()?.create_issue(
                        &args.owner,
                        &args.repo,
                        &args.title,
                        args.body.as_deref(),
                    )
                },
            )
    }
}

mcp_wasm_sdk::export_plugin!(GitHub);
