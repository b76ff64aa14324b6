//! The policy reference (`docs/policy.md`) and the example file must match
//! the code, and every relative link in the README and `docs/` must lead
//! to a file and heading that exist.
use super::*;
use std::time::Duration;

use crate::runtime::capabilities;
use crate::runtime::units::{bytes, count};
use crate::runtime::{Limits, MAX_READY_INSTANCES, MAX_REUSE_INSTANCES};
use crate::source::limits::FetchTimeouts;

fn workspace_file(rel: &str) -> (PathBuf, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    (path, text)
}

#[test]
fn the_example_file_parses_and_its_defaults_are_the_real_ones() {
    let (path, text) = workspace_file("examples/mcp-wasm-host.toml");
    let config = Config::parse(&path, &text, 1 << 30).unwrap();
    let unlisted = config.policy_for("some-other-plugin").unwrap();
    assert_eq!(unlisted.limits, Limits::default());
    let json = config.policy_for("json").unwrap();
    assert_eq!(json.limits.memory_bytes, 256 << 20);
}

#[test]
fn the_policy_reference_network_example_parses_and_its_http_table_matches_the_code() {
    use crate::runtime::capabilities::http::HttpLimits;
    use crate::runtime::units::duration;
    let (path, readme) = workspace_file("docs/policy.md");
    let section = readme
        .split("## Network access and secrets")
        .nth(1)
        .expect("docs/policy.md has a network section");
    let example = section
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the network section has a TOML example");
    let config = Config::parse(&path, example, 1 << 30).unwrap();
    let fetch = config.policy_for("fetch").unwrap();
    assert_eq!(fetch.grants.http.allow.len(), 3);
    assert_eq!(fetch.grants.http.methods, ["GET", "HEAD"]);
    let d = HttpLimits::default();
    let human = |t: Duration| duration(t).replace(' ', "");
    for row in [
        format!("| `max_requests` | integer | `{}` |", d.max_requests),
        format!(
            "| `max_request_body` | size | `\"{}\"` |",
            bytes(d.max_request_body)
        ),
        format!(
            "| `max_response_body` | size | `\"{}\"` |",
            bytes(d.max_response_body)
        ),
        format!(
            "| `connect_timeout` | duration | `\"{}\"` |",
            human(d.connect_timeout)
        ),
        format!(
            "| `first_byte_timeout` | duration | `\"{}\"` |",
            human(d.first_byte_timeout)
        ),
    ] {
        assert!(section.contains(&row), "docs/policy.md lacks the row {row}");
    }
}

#[test]
fn the_policy_reference_defaults_table_matches_the_code() {
    let (_, readme) = workspace_file("docs/policy.md");
    let (_, example) = workspace_file("examples/mcp-wasm-host.toml");
    assert!(
        readme.contains(example.trim_end()),
        "docs/policy.md embeds examples/mcp-wasm-host.toml verbatim"
    );
    let d = Limits::default();
    let int = |n: u64| count(n).replace(',', "_");
    let rows = [
        format!("| `fuel` | integer | `{}` |", int(d.fuel)),
        format!("| `memory` | size | `\"{}\"` |", bytes(d.memory_bytes)),
        format!(
            "| `table_elements` | integer | `{}` |",
            int(d.table_elements)
        ),
        format!("| `instances` | integer | `{}` |", d.instances),
        format!("| `tables` | integer | `{}` |", d.tables),
        format!("| `memories` | integer | `{}` |", d.memories),
        format!("| `timeout` | duration | `\"{}s\"` |", d.timeout.as_secs()),
        format!(
            "| `max_concurrent_calls` | integer | `{}` |",
            d.max_concurrent_calls
        ),
        format!(
            "| `max_argument_size` | size | `\"{}\"` |",
            bytes(d.max_argument_bytes)
        ),
        format!(
            "| `max_result_size` | size | `\"{}\"` |",
            bytes(d.max_result_bytes)
        ),
        format!("| `rate_limit` | integer | `{}` |", d.rate_limit_per_minute),
        format!(
            "| `client_rate_limit` | integer | `{}` |",
            d.client_rate_limit_per_minute
        ),
        format!("| `audit_arguments` | boolean | `{}` |", d.audit_arguments),
        format!(
            "| `block_secrets` | boolean | `{}` |",
            capabilities::secrets::SecretsPolicy::default().block
        ),
        format!("| `receipts` | boolean | `{}` |", d.receipts),
        format!("| `log_lines` | integer | `{}` |", int(d.log_lines)),
        format!("| `log_bytes` | size | `\"{}\"` |", bytes(d.log_bytes)),
        format!(
            "| `host_resources` | integer | `{}` |",
            int(u64::from(d.host_resources))
        ),
        format!("| `max_tools` | integer | `{}` |", int(d.max_tools.into())),
        format!(
            "| `max_schema_size` | size | `\"{}\"` |",
            bytes(d.max_schema_bytes)
        ),
        format!(
            "| `max_tool_list_size` | size | `\"{}\"` |",
            bytes(d.max_tool_list_bytes)
        ),
        format!(
            "| `reuse_instances` | integer or `\"session\"` | `{}` | calls one instance may serve before it is dropped (at most `{}`)",
            d.reuse_instances,
            int(MAX_REUSE_INSTANCES.into())
        ),
        format!(
            "| `ready_instances` | integer | `{}` | fresh instances made ahead of the plugin's calls (at most `{}`)",
            d.ready_instances, MAX_READY_INSTANCES
        ),
    ];
    for row in rows {
        assert!(readme.contains(&row), "docs/policy.md lacks the row {row}");
    }
}

#[test]
fn the_policy_reference_fetch_rows_match_the_code() {
    use crate::source::limits::{DEFAULT_MAX_PLUGIN_SIZE, spelled};
    let (_, readme) = workspace_file("docs/policy.md");
    let t = FetchTimeouts::policy_defaults();
    let rows = [
        format!(
            "| `fetch_connect_timeout` | `{}` |",
            spelled(t.connect.value)
        ),
        format!(
            "| `fetch_first_byte_timeout` | `{}` |",
            spelled(t.first_byte.value)
        ),
        format!("| `fetch_timeout` | `{}` |", spelled(t.total.value)),
        format!(
            "| `max_plugin_size` | `[defaults]`, `[plugins.NAME]` | `\"{}\"` |",
            bytes(DEFAULT_MAX_PLUGIN_SIZE)
        ),
    ];
    for row in rows {
        assert!(readme.contains(&row), "docs/policy.md lacks the row {row}");
    }
    // The keys the rows name are the keys the bounds say in messages.
    for bound in [&t.connect.key, &t.first_byte.key, &t.total.key] {
        let key = bound.trim_start_matches("server.");
        assert!(readme.contains(&format!("| `{key}` |")), "{key}");
    }
}

#[test]
fn the_server_section_table_has_the_real_bounds() {
    let (_, readme) = workspace_file("docs/policy.md");
    let d = ServedBounds::default();
    let t = TaskSettings::default();
    let size = |n: usize| format!("`\"{}\"`", bytes(n as u64));
    for row in [
        format!("| `max_uri_size` | {} |", size(d.max_uri_bytes)),
        format!("| `max_subscriptions` | `{}` |", d.max_subscriptions),
        format!("| `max_watched_size` | {} |", size(d.max_watched_bytes)),
        format!("| `max_listen_streams` | `{}` |", d.max_listen_streams),
        format!("| `max_tasks` | `{}` |", t.max_tasks),
        format!(
            "| `max_task_store_size` | {} |",
            size(t.max_store_bytes as usize)
        ),
    ] {
        assert!(readme.contains(&row), "docs/policy.md lacks the row {row}");
    }
}

#[test]
fn the_policy_reference_server_table_has_the_session_keys_with_their_defaults() {
    use humantime_serde::re::humantime::format_duration;
    let (_, readme) = workspace_file("docs/policy.md");
    let section = readme
        .split("## The server section")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("docs/policy.md has a server section");
    let d = SessionSettings::default();
    let off = |n: usize| {
        if n == 0 {
            "`0` (no bound)".to_string()
        } else {
            format!("`{n}`")
        }
    };
    for row in [
        format!("| `max_sessions` | `{}` |", d.max_sessions),
        format!(
            "| `max_sessions_per_subject` | {} |",
            off(d.max_per_subject)
        ),
        format!(
            "| `max_sessions_per_address` | {} |",
            off(d.max_per_address)
        ),
        format!(
            "| `session_idle_timeout` | `\"{}\"` |",
            format_duration(d.idle_timeout)
        ),
    ] {
        assert!(section.contains(&row), "docs/policy.md lacks the row {row}");
    }
}

/// The lines of a Markdown text outside fenced code blocks.
fn prose_lines(markdown: &str) -> Vec<&str> {
    let mut fenced = false;
    markdown
        .lines()
        .filter(|line| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .collect()
}

/// The anchors GitHub gives a Markdown text's headings: lower case,
/// letters, digits, `-` and `_` kept, spaces made `-`, and `-1`, `-2`, …
/// added to repeats.
fn anchors(markdown: &str) -> Vec<String> {
    let mut slugs: Vec<String> = Vec::new();
    let mut anchors = Vec::new();
    for line in prose_lines(markdown) {
        let Some(heading) = line
            .strip_prefix('#')
            .and_then(|rest| rest.trim_start_matches('#').strip_prefix(' '))
        else {
            continue;
        };
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = slugs.iter().filter(|s| **s == slug).count();
        anchors.push(match repeats {
            0 => slug.clone(),
            n => format!("{slug}-{n}"),
        });
        slugs.push(slug);
    }
    anchors
}

/// The targets of a Markdown text's inline links, code left out.
fn link_targets(markdown: &str) -> Vec<String> {
    let prose = prose_lines(markdown).join("\n");
    let outside_code: Vec<&str> = prose.split('`').step_by(2).collect();
    outside_code
        .join(" ")
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string()))
        .collect()
}

#[test]
fn every_relative_link_in_the_readme_and_docs_leads_to_a_file_and_heading() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pages = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "md") {
            pages.push(path);
        }
    }
    let mut links = 0;
    let mut broken = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for target in link_targets(&text) {
            links += 1;
            if target.contains(':') {
                continue; // https:, mailto:
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = match file {
                "" => page.clone(),
                file => page.parent().unwrap().join(file),
            };
            let found = file.exists()
                && (anchor.is_empty()
                    || std::fs::read_to_string(&file)
                        .is_ok_and(|text| anchors(&text).iter().any(|a| a == anchor)));
            if !found {
                broken.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(links > 100, "only {links} links found");
    assert!(
        broken.is_empty(),
        "links that lead nowhere:\n{}",
        broken.join("\n")
    );
}
