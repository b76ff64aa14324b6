//! Unit tests of `runtime::watch`.

mod classifier_tests {
    use super::super::*;
    use notify_debouncer_mini::{DebouncedEvent, DebouncedEventKind};

    #[test]
    fn the_policy_changes_with_its_file_or_a_kubernetes_volume_swap_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(dir.path());
        let classifier = Classifier {
            dir: root.join("plugins"),
            dir_key: root.join("plugins"),
            policy: Some((root.clone(), "mcp-wasm-host.toml".into())),
        };
        let changed = |names: &[&str]| {
            let events = names
                .iter()
                .map(|n| DebouncedEvent::new(root.join(n), DebouncedEventKind::Any))
                .collect();
            let mut files = BTreeSet::new();
            classifier.note(Ok(events), &mut files)
        };
        assert!(changed(&["mcp-wasm-host.toml"]));
        assert!(changed(&["..2026_11_24_01_00_00.123", "..data"]));
        assert!(!changed(&[
            "other.toml",
            "..2026_11_24_01_00_00.123",
            "..data_tmp"
        ]));
    }
}

mod policy_seen_tests {
    use super::super::PolicySeen;
    use std::fs::File;
    use std::time::{Duration, SystemTime};

    /// Writes `text` to `path` and sets its modification time to `at`, as a
    /// coarse file-system clock would.
    fn write_at(path: &std::path::Path, text: &str, at: SystemTime) {
        std::fs::write(path, text).unwrap();
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    /// Each way a policy file can be written, against the one it replaces:
    /// only reading it again (the watcher's own access) is "unchanged".
    #[test]
    fn a_policy_is_new_unless_both_its_stamp_and_its_bytes_are_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let later = t0 + Duration::from_secs(1);
        let a = "[plugins.a]\nsource = \"oci://h/a:v1\"\n";
        let b = "[plugins.a]\nsource = \"oci://h/b:v1\"\n";
        let longer = "[plugins.a]\nsource = \"oci://h/bb:v1\"\n";
        assert_eq!(a.len(), b.len());
        // (second write, its time, changed?)
        let cases = [
            (a, t0, false),     // read again: nothing written
            (b, t0, true),      // same length, same clock tick
            (longer, t0, true), // another length, same tick
            (a, later, true),   // `touch`: fetch the sources again
            (b, later, true),
        ];
        for (second, at, changed) in cases {
            write_at(&path, a, t0);
            let first = PolicySeen::of(&path).unwrap();
            write_at(&path, second, at);
            let now = PolicySeen::of(&path).unwrap();
            assert_eq!(first != now, changed, "{second:?} at {at:?}");
        }
        std::fs::remove_file(&path).unwrap();
        assert!(PolicySeen::of(&path).is_none());
    }
}

mod start_tests {
    use std::sync::Arc;

    use super::super::*;
    use crate::{DefaultPolicies, EngineSettings, Limits};

    /// A policy file written after the server read it and before its watcher
    /// started (no event can tell of it) is read again as soon as the
    /// watcher starts; one unchanged since is not.
    #[tokio::test]
    async fn a_policy_written_before_the_watcher_started_is_read_at_once() {
        for (written_between, read_again) in [(true, true), (false, false)] {
            let dir = tempfile::tempdir().unwrap();
            let plugins = dir.path().join("plugins");
            std::fs::create_dir(&plugins).unwrap();
            let path = dir.path().join("policy.toml");
            std::fs::write(&path, "# read at start\n").unwrap();
            let seen = PolicySeen::of(&path);
            if written_between {
                std::fs::write(&path, "# written before the watcher\n").unwrap();
            }
            let (tx, mut rx) = mpsc::unbounded_channel();
            let policies = || {
                Arc::new(DefaultPolicies {
                    limits: Limits::default(),
                }) as PolicySource
            };
            let runtime = Arc::new(Runtime::new(&EngineSettings::default(), policies()).unwrap());
            let mut options = WatchOptions::new(&plugins);
            options.policy = Some(PolicyFile {
                path: path.clone(),
                seen,
                load: Box::new(move |path| {
                    let tx = tx.clone();
                    Box::pin(async move {
                        let _ = tx.send(std::fs::read_to_string(path).unwrap());
                        Ok(PolicyUpdate::policies(policies()))
                    })
                }),
            });
            assert_eq!(options.policy.as_ref().unwrap().changed(), read_again);
            let _watcher = watch(runtime, options).unwrap();
            if read_again {
                let read = tokio::time::timeout(Duration::from_secs(120), rx.recv()).await;
                let read = read.expect("the policy was never read again").unwrap();
                assert_eq!(read, "# written before the watcher\n");
            }
        }
    }
}
