//! Replays every saved fuzz input in a normal `cargo test`, without
//! cargo-fuzz: the seed corpus (`fuzz/corpus/<target>/`) and each crash a
//! target ever found (`fuzz/regressions/<target>/`), through the same check
//! the target runs.

use std::path::{Path, PathBuf};

/// A fuzz target's check.
type Check = fn(&[u8]);

/// Each target's name (its directory under `fuzz/corpus/` and
/// `fuzz/regressions/`) and check.
const TARGETS: &[(&str, Check)] = &[
    ("jsonrpc_message", crate::messages::check),
    ("argument_validation", crate::arguments::check),
    ("result_conversion", crate::results::check),
    ("wit_value_conversion", crate::wit_values::check),
];

/// `fuzz/`, this crate's parent directory.
fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files in `dir`, sorted; none when it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_seed_and_every_saved_crash_passes_its_targets_check() {
    for (target, check) in TARGETS {
        let seeds = files(&fuzz_dir().join("corpus").join(target));
        assert!(
            !seeds.is_empty(),
            "the fuzz target {target} has no seed corpus"
        );
        let regressions = files(&fuzz_dir().join("regressions").join(target));
        for file in seeds.iter().chain(&regressions) {
            let bytes = std::fs::read(file).expect("a readable fuzz input");
            eprintln!("replaying {}", file.display());
            check(&bytes);
        }
    }
}
