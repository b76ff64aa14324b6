//! Unit tests of `runtime::capabilities`.
use super::*;

#[test]
fn the_registry_lists_every_capability_and_its_keys_once() {
    assert_eq!(
        NAMES,
        [
            "filesystem",
            "env",
            "network",
            "client",
            "logging",
            "http",
            "secrets"
        ]
    );
    let listed: Vec<&str> = keys().collect();
    assert_eq!(
        listed,
        [
            "mounts",
            "env",
            "env_passthrough",
            "sockets",
            "client",
            "http",
            "secrets",
            "block_secrets"
        ]
    );
    let mut unique = listed.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), listed.len(), "a key is claimed twice");
}

#[test]
fn every_listed_key_is_read_and_an_unknown_key_is_refused() {
    let specs: GrantSpecs = toml::from_str(
            "mounts = [{ host = \"d\", guest = \"/d\" }]\nenv = { A = \"1\" }\nenv_passthrough = [\"B\"]\nclient = { sampling = true }\n",
        )
        .unwrap();
    let unset = GrantSpecs::default();
    assert_ne!(specs.filesystem, unset.filesystem);
    assert_ne!(specs.env, unset.env);
    assert_ne!(specs.client, unset.client);
    let e = toml::from_str::<GrantSpecs>("env = {}\nmount = []\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("line 2") && e.contains("unknown field `mount`") && e.contains("`mounts`"),
        "{e}"
    );
}

#[test]
fn no_capability_may_be_granted_in_the_defaults() {
    let specs: GrantSpecs = toml::from_str("env_passthrough = [\"HOME\"]\n").unwrap();
    let problem = specs.check_defaults().unwrap_err();
    assert_eq!(problem.key, "env");
    assert!(problem.problem.contains("granted per plugin"), "{problem}");
    assert_eq!(GrantSpecs::default().check_defaults(), Ok(()));
}
