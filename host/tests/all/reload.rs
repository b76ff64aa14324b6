//! The runtime's reload API, in process and without MCP: `reload_file`,
//! `remove_file`, `reload_files` and `subscribe_changes`.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use mcp_wasm_host::runtime::{
    Caller, DefaultPolicies, EngineSettings, LoadError, NoEvents, ReloadOutcome, Runtime,
};

fn runtime() -> Runtime {
    let settings = EngineSettings {
        max_instances: 8,
        ..EngineSettings::default()
    };
    Runtime::new(&settings, Arc::new(DefaultPolicies::default())).unwrap()
}

fn names(rt: &Runtime) -> Vec<String> {
    rt.catalog()
        .tools()
        .iter()
        .map(|t| t.name.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reloads_swap_the_catalog_and_tell_the_subscribers() {
    let dir = tempfile::tempdir().unwrap();
    let panic = dir.path().join("panic.wasm");
    std::fs::copy(test_artifacts::PANIC, &panic).unwrap();
    let rt = runtime();
    rt.load_dir(dir.path()).await.unwrap();
    let mut changes = rt.subscribe_changes();
    assert_eq!(names(&rt), ["ok", "panic"]);
    let old = rt.catalog();

    // Added.
    let file = dir.path().join("x.wasm");
    std::fs::copy(test_artifacts::DUPA, &file).unwrap();
    let outcome = rt.reload_file(&file).await;
    assert!(
        matches!(
            outcome,
            ReloadOutcome::Loaded {
                replaced: false,
                list_changed: true,
                tools: 1,
                ..
            }
        ),
        "{outcome:?}"
    );
    assert!(changes.has_changed().unwrap());
    changes.mark_unchanged();
    assert_eq!(names(&rt), ["echo", "ok", "panic"]);
    // The catalog taken before still holds the old list.
    assert_eq!(old.tools().len(), 2);

    // An event for a file that did not change (a read): nothing happens.
    let outcome = rt.reload_file(&file).await;
    assert!(matches!(outcome, ReloadOutcome::Unchanged), "{outcome:?}");
    assert!(!changes.has_changed().unwrap());

    // Replaced by another plugin with a tool of the same name (another
    // description): the list changed, and calls go to the new code.
    std::fs::copy(test_artifacts::DUPB, &file).unwrap();
    let outcome = rt.reload_file(&file).await;
    assert!(
        matches!(
            outcome,
            ReloadOutcome::Loaded {
                replaced: true,
                list_changed: true,
                ..
            }
        ),
        "{outcome:?}"
    );
    assert!(changes.has_changed().unwrap());
    changes.mark_unchanged();
    let out = rt
        .call(
            "echo",
            Some(serde_json::from_str(r#"{"text":"hi"}"#).unwrap()),
            &Caller::new(),
            Arc::new(NoEvents),
        )
        .await
        .result
        .unwrap();
    assert!(format!("{out:?}").contains("b:"), "{out:?}");

    // A broken replacement keeps the previous version.
    std::fs::write(&file, b"not wasm").unwrap();
    let outcome = rt.reload_file(&file).await;
    assert!(
        matches!(outcome, ReloadOutcome::Failed(LoadError::NotWasm { .. })),
        "{outcome:?}"
    );
    assert_eq!(names(&rt), ["echo", "ok", "panic"]);
    assert!(!changes.has_changed().unwrap());

    // Reloading every file keeps what fails at its previous version.
    let report = rt.reload_files(&[panic.clone(), file.clone()]).await;
    assert_eq!(report.loaded, ["panic"]);
    assert_eq!(report.failed.len(), 1);
    assert_eq!(names(&rt), ["echo", "ok", "panic"]);

    // Removed.
    assert_eq!(rt.remove_file(&file).await.as_deref(), Some("x"));
    assert!(changes.has_changed().unwrap());
    assert_eq!(names(&rt), ["ok", "panic"]);
    assert_eq!(rt.remove_file(&file).await, None);
}
