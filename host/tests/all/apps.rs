//! MCP Apps (extension `io.modelcontextprotocol/ui`): the `csvview`
//! example's interactive view, served by the real binary over stdio and
//! rendered in headless Chromium the way an MCP Apps client renders it.
//!
//! Over MCP: `tools/list` shows `chart_csv` with `_meta.ui.resourceUri`;
//! `resources/read` of that `ui://` URI gives the HTML with the MIME type
//! `text/html;profile=mcp-app` and its `_meta.ui`; the template
//! `csvview://samples/{name}` gives a sample CSV and `tools/call` charts it.
//!
//! In the browser: `tests/apps/host.html` is the host side. The test fills
//! it in with the view's HTML (under a Content-Security-Policy built from the
//! resource's `_meta.ui.csp`), the tool's arguments and the real result, and
//! writes it to `target/apps/`. Chromium loads it (`--dump-dom`); the page
//! embeds the view in a sandboxed iframe, answers `ui/initialize`, sends
//! `ui/notifications/tool-input` and `ui/notifications/tool-result`, copies
//! what the view rendered (bar labels and values, table rows) into its own
//! DOM, changes the view's column picker and sort order, and copies again.
//! The test checks those against values it computes from the CSV, then
//! takes a screenshot: `target/apps/csvview.png`.
//!
//! The browser part needs Chromium: `MCP_WASM_HOST_CHROMIUM` names it
//! (`MCP_WASM_HOST_CHROMIUM=$(scripts/setup-chromium.sh)`, as
//! `scripts/test.sh` sets it). Without it, the MCP part still runs and the
//! browser part says so and passes without running.
#![allow(clippy::unwrap_used)]

use crate::common::revision::R4;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{Server, text};
use serde_json::{Value, json};

const VIEW_URI: &str = "ui://csvview/chart.html";
const VIEW_MIME: &str = "text/html;profile=mcp-app";
const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The screenshot's size.
const WINDOW: (u32, u32) = (900, 860);

/// Chromium: `MCP_WASM_HOST_CHROMIUM`, or `None` after saying how to get it.
fn chromium() -> Option<OsString> {
    crate::common::toolchain(&crate::common::CHROMIUM).map(PathBuf::into_os_string)
}

/// `target/apps`, where the host pages and the screenshot go.
fn out_dir() -> PathBuf {
    let dir = crate::common::target_dir().join("apps");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A server with the csvview example alone, initialized by a client that
/// declares MCP Apps support; the directory lives as long as the server.
fn serve() -> (Server, tempfile::TempDir) {
    let (dir, plugins, config) = crate::common::plugins_with_policy(&[test_artifacts::CSVVIEW], "");
    let mut s = Server::start(&plugins, &["--config", &config]);
    let init = s.request(
        "initialize",
        json!({
            "protocolVersion": R4,
            "capabilities": {
                "extensions": { EXTENSION: { "mimeTypes": [VIEW_MIME] } }
            },
            "clientInfo": {"name": "apps-harness", "version": "0"}
        }),
    );
    assert!(init.get("result").is_some(), "initialize failed: {init}");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    (s, dir)
}

/// The result of a request that must succeed.
fn ok(s: &mut Server, method: &str, params: Value) -> Value {
    let resp = s.request(method, params.clone());
    resp.get("result")
        .cloned()
        .unwrap_or_else(|| panic!("{method}({params}) failed: {resp}"))
}

/// The view as an MCP Apps client fetches it: the tool's definition and
/// the contents of the `ui://` resource it names.
fn tool_and_view(s: &mut Server) -> (Value, Value) {
    let (tools, _) = s.list_all_tools();
    let tool = tools
        .iter()
        .find(|t| t["name"] == "chart_csv")
        .unwrap_or_else(|| panic!("no chart_csv in {tools:?}"))
        .clone();
    assert_eq!(tool["_meta"]["ui"]["resourceUri"], VIEW_URI, "{tool}");

    let listed = ok(s, "resources/list", json!({}));
    let entry = listed["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"] == VIEW_URI)
        .unwrap_or_else(|| panic!("{VIEW_URI} is not listed: {listed}"));
    assert_eq!(entry["mimeType"], VIEW_MIME, "{entry}");

    let read = ok(s, "resources/read", json!({"uri": VIEW_URI}));
    let contents = read["contents"].as_array().unwrap();
    assert_eq!(contents.len(), 1, "{read}");
    let view = contents[0].clone();
    assert_eq!(view["uri"], VIEW_URI);
    assert_eq!(view["mimeType"], VIEW_MIME);
    let html = view["text"].as_str().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"), "{html:.200}");
    assert!(html.contains("ui/initialize"));
    let ui = &view["_meta"]["ui"];
    assert!(ui.is_object(), "no _meta.ui: {view}");
    assert_eq!(ui["prefersBorder"], true, "{ui}");
    for key in [
        "connectDomains",
        "resourceDomains",
        "frameDomains",
        "baseUriDomains",
    ] {
        let domains = &ui["csp"][key];
        assert!(
            domains.is_null() || domains == &json!([]),
            "the view reaches no origin, yet {key} is {domains}"
        );
    }
    (tool, view)
}

/// The Content-Security-Policy a host builds from `_meta.ui.csp` (the spec's
/// restrictive default, without `'self'`, plus the declared domains).
fn csp(view: &Value) -> String {
    let domains = |key: &str| -> Vec<String> {
        view["_meta"]["ui"]["csp"][key]
            .as_array()
            .map(|a| a.iter().map(|d| d.as_str().unwrap().to_owned()).collect())
            .unwrap_or_default()
    };
    let list = |base: &[&str], extra: Vec<String>, none: &str| -> String {
        let all: Vec<String> = base.iter().map(|s| s.to_string()).chain(extra).collect();
        if all.is_empty() {
            none.to_owned()
        } else {
            all.join(" ")
        }
    };
    let res = domains("resourceDomains");
    [
        "default-src 'none'".to_owned(),
        format!("script-src {}", list(&["'unsafe-inline'"], res.clone(), "")),
        format!("style-src {}", list(&["'unsafe-inline'"], res.clone(), "")),
        format!("img-src {}", list(&["data:"], res.clone(), "")),
        format!("font-src {}", list(&[], res.clone(), "'none'")),
        format!("media-src {}", list(&["data:"], res, "")),
        format!(
            "connect-src {}",
            list(&[], domains("connectDomains"), "'none'")
        ),
        format!("frame-src {}", list(&[], domains("frameDomains"), "'none'")),
        "object-src 'none'".to_owned(),
        format!(
            "base-uri {}",
            list(&[], domains("baseUriDomains"), "'self'")
        ),
    ]
    .join("; ")
}

/// Writes `tests/apps/host.html` filled in with `config` to
/// `target/apps/NAME.html`; returns its path.
fn host_page(name: &str, config: &Value) -> PathBuf {
    let template =
        std::fs::read_to_string(crate::common::workspace_root().join("tests/apps/host.html"))
            .unwrap();
    // `<` escaped, so that no `</script>` in the data ends the element.
    let config = config.to_string().replace('<', "\\u003c");
    assert!(template.contains("/*CONFIG*/"));
    let path = out_dir().join(format!("{name}.html"));
    std::fs::write(&path, template.replace("/*CONFIG*/", &config)).unwrap();
    path
}

/// Runs headless Chromium on `page` with `args`; returns its stdout.
fn run_chromium(chromium: &OsString, page: &Path, args: &[&str]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--virtual-time-budget=15000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "chromium failed on {}:\n{}",
        page.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Loads `page` and returns the report the host page wrote into its DOM,
/// after checking the handshake and that nothing went wrong.
fn render(chromium: &OsString, page: &Path) -> Value {
    let dom = run_chromium(chromium, page, &["--dump-dom"]);
    let start = dom
        .find(r#"id="report">"#)
        .unwrap_or_else(|| panic!("no report element in the dumped DOM:\n{dom}"));
    let rest = &dom[start + r#"id="report">"#.len()..];
    let json = &rest[..rest.find("</script>").unwrap()];
    let report: Value = serde_json::from_str(json)
        .unwrap_or_else(|e| panic!("the host page wrote no report ({e}); DOM:\n{dom}"));
    assert_eq!(report["state"], "done", "{report:#}");
    assert_eq!(report["problems"], json!([]), "{report:#}");

    // The view's side of the handshake: ui/initialize (a request), then
    // ui/notifications/initialized, then only notifications.
    let messages = report["messages"].as_array().unwrap();
    let init = &messages[0];
    assert_eq!(init["method"], "ui/initialize", "{messages:?}");
    assert!(init["id"].is_number() || init["id"].is_string(), "{init}");
    assert_eq!(init["params"]["protocolVersion"], "2026-01-26");
    assert_eq!(init["params"]["appInfo"]["name"], "csvview-chart");
    assert!(init["params"]["appCapabilities"].is_object(), "{init}");
    assert_eq!(messages[1]["method"], "ui/notifications/initialized");
    for m in &messages[1..] {
        assert!(m.get("id").is_none(), "an unexpected request: {m}");
    }
    report
}

/// `x` as an en-US locale prints it with at most two decimals: `1,234.5`.
fn en_us(x: f64) -> String {
    let fixed = format!("{:.2}", x.abs());
    let fixed = fixed.trim_end_matches('0').trim_end_matches('.');
    let (int, frac) = fixed.split_once('.').unwrap_or((fixed, ""));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if x < 0.0 && fixed != "0" { "-" } else { "" };
    if frac.is_empty() {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}.{frac}")
    }
}

/// The snapshot called `label` in the report.
fn capture<'a>(report: &'a Value, label: &str) -> &'a Value {
    report["captures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["label"] == label)
        .unwrap_or_else(|| panic!("no capture {label}: {report:#}"))
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect()
}

/// The cells of each table row (innerText separates them with tabs).
fn table(v: &Value) -> Vec<Vec<String>> {
    strings(v)
        .iter()
        .map(|row| row.split('\t').map(|c| c.trim().to_owned()).collect())
        .collect()
}

fn host_config(tool: &Value, view: &Value, input: &Value, result: &Value) -> Value {
    json!({
        "html": view["text"],
        "csp": csp(view),
        "tool": tool,
        "input": input,
        "result": result,
        "hostContext": {
            "theme": "light",
            "locale": "en-US",
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "desktop",
            "containerDimensions": {"maxHeight": 4000, "width": 820},
            "toolInfo": {"tool": tool},
        },
        "frameWidth": 820,
        "capture": {
            "title": "#title",
            "status": "#status",
            "input": "#input-summary",
            "labels": "#chart .bar-label",
            "values": "#chart .bar-value",
            "rows": "#stats tbody tr",
        },
        "steps": [],
    })
}

#[test]
fn chart_csv_renders_in_its_view_in_chromium() {
    let (mut s, _dir) = serve();
    let (tool, view) = tool_and_view(&mut s);

    // A sample CSV from the plugin's resource template.
    let sample = ok(
        &mut s,
        "resources/read",
        json!({"uri": "csvview://samples/cities"}),
    );
    assert_eq!(sample["contents"][0]["mimeType"], "text/csv", "{sample}");
    let csv = sample["contents"][0]["text"].as_str().unwrap().to_owned();

    let input = json!({ "csv": csv });
    let result = s.call_ok("chart_csv", input.clone());
    let structured = &result["structuredContent"];
    assert_eq!(structured["column"], "population", "{structured}");
    assert!(
        text(&result).starts_with("8 rows, 4 columns; charted: population."),
        "{result}"
    );

    // What the view should show, computed from the CSV itself.
    let lines: Vec<Vec<&str>> = csv.lines().map(|l| l.split(',').collect()).collect();
    let header = &lines[0];
    let rows = &lines[1..];
    let numbers =
        |col: usize| -> Vec<f64> { rows.iter().map(|r| r[col].parse().unwrap()).collect() };
    let cities: Vec<String> = rows.iter().map(|r| r[0].to_owned()).collect();
    let population = numbers(2);
    let area = numbers(3);

    let Some(chromium) = chromium() else { return };
    let mut config = host_config(&tool, &view, &input, &result);
    config["steps"] = json!([
        {"select": "column", "value": "area_km2"},
        {"select": "order", "value": "desc"},
    ]);
    let page = host_page("csvview", &config);
    let report = render(&chromium, &page);

    let first = capture(&report, "initial");
    assert_eq!(first["state"], "rendered");
    assert_eq!(strings(&first["title"]), ["CSV: 8 rows × 4 columns"]);
    assert_eq!(strings(&first["labels"]), cities);
    assert_eq!(
        strings(&first["values"]),
        population.iter().map(|&v| en_us(v)).collect::<Vec<_>>()
    );
    assert_eq!(
        strings(&first["input"]),
        [format!(
            "{} lines of CSV; column: the first numeric one",
            lines.len()
        )]
    );

    // The statistics table: one row per column, in the header's order.
    let stats = table(&first["rows"]);
    assert_eq!(stats.len(), header.len(), "{stats:?}");
    for (i, name) in header.iter().enumerate() {
        let row = &stats[i];
        assert_eq!(row[0], *name, "{row:?}");
        assert_eq!(row[2], rows.len().to_string(), "{row:?}");
        assert_eq!(row[3], "0", "{row:?}");
        if i >= 2 {
            let values = numbers(i);
            let min = values.iter().copied().fold(f64::INFINITY, f64::min);
            let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            assert_eq!(row[1], "number", "{row:?}");
            assert_eq!(row[4..7], [en_us(min), en_us(max), en_us(mean)], "{row:?}");
        } else {
            assert_eq!(row[1], "text", "{row:?}");
        }
    }
    // `country` lists India, which occurs twice, first.
    assert!(stats[1][7].starts_with("India (2), "), "{:?}", stats[1]);

    // The picker charts another column; the order sorts the bars.
    let by_area = capture(&report, "column=area_km2");
    assert_eq!(strings(&by_area["labels"]), cities);
    assert_eq!(
        strings(&by_area["values"]),
        area.iter().map(|&v| en_us(v)).collect::<Vec<_>>()
    );
    let sorted = capture(&report, "order=desc");
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| area[b].total_cmp(&area[a]));
    assert_eq!(
        strings(&sorted["labels"]),
        order.iter().map(|&i| cities[i].clone()).collect::<Vec<_>>()
    );
    assert_eq!(
        strings(&sorted["values"]),
        order.iter().map(|&i| en_us(area[i])).collect::<Vec<_>>()
    );

    // The screenshot, of the view as first rendered.
    config["steps"] = json!([]);
    let page = host_page("csvview-screenshot", &config);
    let png = out_dir().join("csvview.png");
    let _ = std::fs::remove_file(&png);
    run_chromium(
        &chromium,
        &page,
        &[
            &format!("--screenshot={}", png.display()),
            &format!("--window-size={},{}", WINDOW.0, WINDOW.1),
        ],
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), WINDOW);
    eprintln!("screenshot: {}", png.display());
}

#[test]
fn a_tool_error_shows_in_the_view() {
    let (mut s, _dir) = serve();
    let (tool, view) = tool_and_view(&mut s);
    let input = json!({ "csv": "name,score\nada,3\nbob,5\n", "column": "name" });
    let resp = s.call("chart_csv", input.clone());
    let result = &resp["result"];
    assert_eq!(result["isError"], true, "{resp}");
    let message = text(result);
    assert!(
        message.contains("column `name` is not numeric"),
        "{message}"
    );

    let Some(chromium) = chromium() else { return };
    let page = host_page("csvview-error", &host_config(&tool, &view, &input, result));
    let report = render(&chromium, &page);
    let first = capture(&report, "initial");
    assert_eq!(first["state"], "error", "{first}");
    assert_eq!(strings(&first["status"]), [message.trim()]);
    assert_eq!(strings(&first["input"]), ["3 lines of CSV; column: name"]);
    assert_eq!(first["labels"], json!([]));
}
