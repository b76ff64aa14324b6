//! Unit tests of `cli::serve`.
use std::path::{Path, PathBuf};

use super::*;
use mcp_wasm_host::runtime::FirstLists;

/// An empty `--config` (an unset bundle setting) means no policy file.
#[test]
fn an_empty_config_value_means_no_policy_file() {
    use clap::Parser as _;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }
    let file = |args: &[&str]| {
        let cli = Cli::try_parse_from(args).expect("parses");
        cli.serve.config_file().map(Path::to_owned)
    };
    assert_eq!(file(&["x", "--config", ""]), None);
    assert_eq!(file(&["x"]), None);
    assert_eq!(
        file(&["x", "--config", "p.toml"]),
        Some(PathBuf::from("p.toml"))
    );
}

/// `--wait-for-load` takes the boolean spellings it always took, and
/// `uncached`, its default.
#[test]
fn wait_for_load_takes_booleans_and_uncached() {
    use clap::Parser as _;
    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }
    let wait = |args: &[&str]| {
        Cli::try_parse_from(args)
            .map(|cli| cli.serve.wait_for_load.lists_after())
            .map_err(|e| e.to_string())
    };
    if std::env::var_os("MCP_WASM_HOST_WAIT_FOR_LOAD").is_none() {
        assert_eq!(wait(&["x"]), Ok(FirstLists::EveryPlugin));
    }
    assert_eq!(wait(&["x", "--wait-for-load"]), Ok(FirstLists::Loaded));
    for all in ["true", "1", "yes", "on", "TRUE"] {
        let arg = format!("--wait-for-load={all}");
        assert_eq!(wait(&["x", &arg]), Ok(FirstLists::Loaded), "{all}");
    }
    for none in ["false", "0", "no", "off"] {
        let arg = format!("--wait-for-load={none}");
        assert_eq!(wait(&["x", &arg]), Ok(FirstLists::Cached), "{none}");
    }
    assert_eq!(
        wait(&["x", "--wait-for-load=uncached"]),
        Ok(FirstLists::EveryPlugin)
    );
    let typo = wait(&["x", "--wait-for-load=uncashed"]).unwrap_err();
    assert!(typo.contains("uncached"), "{typo}");
}
