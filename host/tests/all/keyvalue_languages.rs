//! Tools that remember, written the way each ecosystem writes them (issue
//! 45): a counter and a small notes tool in Python with componentize-py
//! (`plugins/testing-generic/python/pynotes`) and in JavaScript with
//! componentize-js (`plugins/testing-generic/js/jsnotes`), plain WIT and no
//! SDK, importing the upstream `wasi:keyvalue@0.2.0-draft2` WIT vendored in
//! `wit/wasi/`. Each is built from source by the project's scripts
//! (`scripts/build-python-plugin.sh`, `scripts/build-js-plugin.sh`), served
//! by the real binary as a generic component, and called by the official
//! Python SDK client: over the embedded store, where the counter and the
//! notes outlive a restart on the same `--state-dir` and a policy without
//! the grant gets the denial naming its key; then over a real redis-server,
//! where a server with another state directory finds them. The JavaScript
//! component also has a tool shaped like Wassette's get-weather-js: it reads
//! its API key from `wasi:config/store@0.2.0-draft` and is denied its fetch
//! naming the policy key.
//!
//! The Python build runs componentize-py from the project's venv
//! (`scripts/setup-python.sh`); the JavaScript build needs Node
//! (`MCP_WASM_HOST_NODE=$(scripts/setup-node.sh)`) and Redis
//! (`MCP_WASM_HOST_REDIS=$(scripts/setup-redis.sh)`), as `scripts/test.sh`
//! sets them: without them a test says so and passes without running,
//! except under CI, where it fails.
#![allow(clippy::unwrap_used)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::{Value, json};

use crate::common::redis::Redis;
use crate::common::{plugins_with_policy, run_build_script, run_python_client, target_dir};

/// A guest language: its build script and the directory of its plugins.
struct Language {
    /// `scripts/build-LANG-plugin.sh`.
    script: &'static str,
    /// `LANG` in `plugins/testing-generic/LANG/`.
    dir: &'static str,
    /// The component's name (and its directory's).
    name: &'static str,
}

const PYTHON: Language = Language {
    script: "build-python-plugin.sh",
    dir: "python",
    name: "pynotes",
};

const JS: Language = Language {
    script: "build-js-plugin.sh",
    dir: "js",
    name: "jsnotes",
};

/// The component of `language`, built once per test binary, or `None` when
/// its toolchain is missing (after [`crate::common::skip`] said so).
fn built(language: &Language) -> Option<PathBuf> {
    static PYTHON_BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    static JS_BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    let cell = if language.dir == PYTHON.dir {
        &PYTHON_BUILT
    } else {
        &JS_BUILT
    };
    cell.get_or_init(|| {
        let mut env: Vec<(&str, OsString)> = Vec::new();
        if language.dir == JS.dir {
            let node = crate::common::toolchain(&crate::common::NODE)?;
            let path = std::env::var_os("PATH").unwrap_or_default();
            let dirs = std::iter::once(node.parent().unwrap().to_path_buf())
                .chain(std::env::split_paths(&path));
            env.push(("PATH", std::env::join_paths(dirs).unwrap()));
        }
        let sources = crate::common::workspace_root()
            .join("plugins/testing-generic")
            .join(language.dir);
        env.push(("MCP_WASM_HOST_PLUGIN_SRC", sources.into_os_string()));
        let out = target_dir().join("keyvalue-languages").join(language.dir);
        let env: Vec<(&str, &std::ffi::OsStr)> =
            env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
        run_build_script(language.script, &out, &env);
        Some(out.join(format!("{}.wasm", language.name)))
    })
    .clone()
}

/// The policy granting `name` the buckets its tools open, on `store` (a
/// `[server]` section, or nothing for the embedded store).
fn granted(name: &str, store: &str) -> String {
    format!("{store}[plugins.{name}.keyvalue]\nbuckets = [\"default\", \"notes\"]\n")
}

/// One session of the official Python SDK client with a server on
/// `plugins` under `config`, keeping its embedded store in `state`: makes
/// `calls` (as `sdk_client.py --call-all-file` takes them, each saying
/// whether it fails) in order and returns, for each, the `result` of its
/// structured content, or `{"error": TEXT}` for a call that failed.
fn session(plugins: &Path, config: &str, state: &Path, calls: Value) -> Vec<Value> {
    let file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(file.path(), calls.to_string()).unwrap();
    let cache = target_dir().join("test-cache");
    let summary = run_python_client(
        "sdk_client.py",
        &[
            "--plugins".as_ref(),
            plugins.as_os_str(),
            format!("--server-arg=--config={config}").as_ref(),
            format!("--server-arg=--state-dir={}", state.display()).as_ref(),
            format!("--server-env=MCP_WASM_HOST_CACHE_DIR={}", cache.display()).as_ref(),
            "--call-all-file".as_ref(),
            file.path().as_os_str(),
            "--timeout".as_ref(),
            "300".as_ref(),
        ],
    );
    summary["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            let text = call["text"].as_str().unwrap();
            if call["is_error"] == json!(true) {
                return json!({ "error": text });
            }
            serde_json::from_str::<Value>(text).unwrap()["result"].clone()
        })
        .collect()
}

/// Counts and keeps notes with the component of `language`, granted its
/// buckets on `store` (see [`granted`]), in two sessions, each a server of its own: the first in the state
/// directory `first`, the second in `second` (the same one to see the
/// embedded store outlive a restart, another to see Redis hold the data).
fn counts_and_keeps_notes(language: &Language, store: &str, first: &str, second: &str) {
    let Some(component) = built(language) else {
        return;
    };
    let name = language.name;
    let (dir, plugins, config) =
        plugins_with_policy(&[component.to_str().unwrap()], &granted(name, store));
    let sessions = [
        (
            first,
            vec![
                (increment("visits"), json!(1)),
                (increment("visits"), json!(2)),
                (increment("other"), json!(1)),
                (add_note("buy milk"), json!(1)),
                (add_note("call home"), json!(2)),
                (notes(), json!(["buy milk", "call home"])),
            ],
        ),
        (
            second,
            vec![
                (increment("visits"), json!(3)),
                (add_note("water the plants"), json!(3)),
                (
                    notes(),
                    json!(["buy milk", "call home", "water the plants"]),
                ),
            ],
        ),
    ];
    for (n, (state, calls)) in sessions.into_iter().enumerate() {
        let (calls, expected): (Vec<Value>, Vec<Value>) = calls.into_iter().unzip();
        let results = session(&plugins, &config, &dir.path().join(state), calls.into());
        assert_eq!(results, expected, "{name}, session {}", n + 1);
    }
}

/// A call of `increment` adding one to the counter `key`.
fn increment(key: &str) -> Value {
    json!({"name": "increment", "arguments": {"key": key}})
}

/// A call of `add-note` keeping `text`.
fn add_note(text: &str) -> Value {
    json!({"name": "add-note", "arguments": {"text": text}})
}

/// A call of `notes`.
fn notes() -> Value {
    json!({"name": "notes", "arguments": {}})
}

/// The embedded store keeps the counter and the notes across a restart on
/// the same state directory; a policy that grants nothing gets the denial
/// naming the key that would grant the bucket, through the guest's own
/// error.
fn remembers_on_the_embedded_store(language: &Language) {
    counts_and_keeps_notes(language, "", "state", "state");
    let Some(component) = built(language) else {
        return;
    };
    let name = language.name;
    let mut denied = increment("visits");
    denied["is_error"] = json!(true);
    let (dir, plugins, config) = plugins_with_policy(&[component.to_str().unwrap()], "");
    let results = session(
        &plugins,
        &config,
        &dir.path().join("state"),
        json!([denied]),
    );
    let denial = results[0]["error"].as_str().unwrap_or_default();
    assert!(
        denial.contains("access-denied")
            && denial.contains(&format!("plugins.{name}.keyvalue.buckets")),
        "{name} without a grant: {results:?}"
    );
}

/// Redis keeps the counter and the notes for a second server with another
/// state directory.
fn remembers_on_redis(language: &Language) {
    let Some(redis) = Redis::start() else { return };
    let store = format!("[server]\nstore = {{ redis = \"{}\" }}\n\n", redis.url());
    counts_and_keeps_notes(language, &store, "state-a", "state-b");
}

#[test]
fn a_componentize_py_component_remembers_across_a_restart_on_the_embedded_store() {
    remembers_on_the_embedded_store(&PYTHON);
}

#[test]
fn a_componentize_js_component_remembers_across_a_restart_on_the_embedded_store() {
    remembers_on_the_embedded_store(&JS);
}

#[test]
fn a_componentize_py_component_remembers_on_redis() {
    remembers_on_redis(&PYTHON);
}

#[test]
fn a_componentize_js_component_remembers_on_redis() {
    remembers_on_redis(&JS);
}

/// A call of `weather` for Seattle that fails.
fn weather() -> Value {
    json!({"name": "weather", "arguments": {"city": "Seattle"}, "is_error": true})
}

#[test]
fn a_componentize_js_component_reads_its_config_and_is_denied_the_network_naming_the_key() {
    // The shape of Wassette's get-weather-js: an API key from
    // wasi:config/store@0.2.0-draft, then a fetch of an origin the policy
    // does not allow.
    let Some(component) = built(&JS) else {
        return;
    };
    // (the policy, what the call's error says)
    let table = [
        ("", "OPENWEATHER_API_KEY is not set".to_string()),
        (
            "[plugins.jsnotes.config]\nOPENWEATHER_API_KEY = \"owm-test-key\"\n",
            "plugins.jsnotes.http".to_string(),
        ),
    ];
    for (policy, expected) in table {
        let (dir, plugins, config) = plugins_with_policy(&[component.to_str().unwrap()], policy);
        let results = session(
            &plugins,
            &config,
            &dir.path().join("state"),
            json!([weather()]),
        );
        let error = results[0]["error"].as_str().unwrap_or_default();
        assert!(error.contains(&expected), "under {policy:?}: {results:?}");
        assert!(
            policy.is_empty() || error.contains("https://api.openweathermap.org"),
            "the denial names the origin: {error}"
        );
        assert!(!error.contains("owm-test-key"), "{error}");
    }
}
