//! The GitHub REST API's issues endpoints, without a token (the host injects
//! `Authorization`), and GitHub's error messages as tool errors.

use mcp_wasm_sdk::ToolError;
use mcp_wasm_sdk::http::{Request, Response};
use mcp_wasm_sdk::prelude::*;
use serde_json::{Value, json};

/// The API unless `GITHUB_API_URL` says otherwise.
const DEFAULT_BASE: &str = "https://api.github.com";
const ACCEPT: &str = "application/vnd.github+json";
const USER_AGENT: &str = "mcp-wasm-host-github";
const API_VERSION: &str = "2022-11-28";
/// The most response bytes read (a page of 100 issues with long bodies).
const BODY_LIMIT: usize = 4 << 20;

/// An issue, as the tools return it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Issue {
    /// Its number in the repository.
    pub number: u64,
    /// Its title.
    pub title: String,
    /// `open` or `closed`.
    pub state: String,
    /// Its page on GitHub.
    pub url: String,
}

impl Issue {
    fn from_json(v: &Value) -> Option<Self> {
        Some(Self {
            number: v["number"].as_u64()?,
            title: v["title"].as_str()?.to_string(),
            state: v["state"].as_str().unwrap_or("open").to_string(),
            url: v["html_url"].as_str().unwrap_or_default().to_string(),
        })
    }
}

/// The API at one base URL.
#[derive(Debug)]
pub struct Api {
    base: String,
}

impl Api {
    /// The API at `GITHUB_API_URL`, or at GitHub's.
    pub fn from_env() -> Result<Self, ToolError> {
        let base = std::env::var("GITHUB_API_URL").unwrap_or_else(|_| DEFAULT_BASE.to_string());
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
        })
    }

    /// `GET /repos/{owner}/{repo}/issues?state=…`, pull requests left out.
    pub fn list_issues(
        &self,
        owner: &str,
        repo: &str,
        state: &str,
    ) -> Result<Vec<Issue>, ToolError> {
        let url = format!(
            "{}?state={state}&per_page=100",
            self.issues_url(owner, repo)?
        );
        let value = self.send(Request::get(&url).map_err(|e| e.into_tool_error())?)?;
        let items = value
            .as_array()
            .ok_or_else(|| ToolError::failed("GitHub's answer is not a list of issues"))?;
        Ok(items
            .iter()
            .filter(|i| i.get("pull_request").is_none())
            .filter_map(Issue::from_json)
            .collect())
    }

    /// `POST /repos/{owner}/{repo}/issues`.
    pub fn create_issue(
        &self,
        owner: &str,
        repo: &str,
        title: &str,
        body: Option<&str>,
    ) -> Result<Issue, ToolError> {
        let mut payload = json!({ "title": title });
        if let Some(body) = body {
            payload["body"] = json!(body);
        }
        let request = Request::post(&self.issues_url(owner, repo)?)
            .map_err(|e| e.into_tool_error())?
            .header("Content-Type", "application/json")
            .body(payload.to_string());
        let value = self.send(request)?;
        Issue::from_json(&value)
            .ok_or_else(|| ToolError::failed("GitHub's answer does not describe an issue"))
    }

    fn issues_url(&self, owner: &str, repo: &str) -> Result<String, ToolError> {
        Ok(format!(
            "{}/repos/{}/{}/issues",
            self.base,
            segment("owner", owner)?,
            segment("repo", repo)?
        ))
    }

    /// Sends `request` with GitHub's headers; a non-2xx answer is a tool
    /// error carrying GitHub's message.
    fn send(&self, request: Request) -> Result<Value, ToolError> {
        let response = request
            .header("Accept", ACCEPT)
            .header("User-Agent", USER_AGENT)
            .header("X-GitHub-Api-Version", API_VERSION)
            .send()
            .map_err(|e| e.into_tool_error())?;
        read_json(response)
    }
}

fn read_json(response: Response) -> Result<Value, ToolError> {
    let status = response.status();
    let body = response.body(BODY_LIMIT).map_err(|e| e.into_tool_error())?;
    let value: Option<Value> = serde_json::from_slice(&body.bytes).ok();
    if (200..300).contains(&status) {
        return value.ok_or_else(|| ToolError::failed("GitHub's answer is not JSON"));
    }
    let message = value
        .as_ref()
        .and_then(|v| v["message"].as_str())
        .map_or_else(|| body.text(), str::to_string);
    let text = format!("GitHub answered {status}: {message}");
    Err(match status {
        401 | 403 => ToolError::denied(text),
        _ => ToolError::failed(text),
    })
}

/// A repository owner or name, which must be one path segment.
fn segment<'a>(what: &str, value: &'a str) -> Result<&'a str, ToolError> {
    let ok = !value.is_empty()
        && value != "."
        && value != ".."
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(value)
    } else {
        Err(ToolError::invalid_arguments(format!(
            "`{what}` {value:?} is not a GitHub name (letters, digits, `-`, `_`, `.`)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_and_repo_must_be_single_path_segments() {
        assert!(segment("owner", "rust-lang").is_ok());
        assert!(segment("repo", "mcp.wasm_host").is_ok());
        for bad in ["", "..", "a/b", "a?b", "a b", "x%2f"] {
            assert!(segment("owner", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_issue_is_read_from_github_json() {
        let v = json!({"number": 7, "title": "t", "state": "closed", "html_url": "u", "x": 1});
        let issue = Issue::from_json(&v).unwrap();
        assert_eq!((issue.number, issue.state.as_str()), (7, "closed"));
        assert!(Issue::from_json(&json!({"title": "no number"})).is_none());
    }
}
