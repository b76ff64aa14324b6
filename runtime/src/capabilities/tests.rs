//! Unit tests of `runtime::capabilities`.
use super::*;

#[test]
fn the_registry_lists_every_capability_and_its_keys_once() {
    assert_eq!(
        NAMES,
        [
            "filesystem",
            "env",
            "sockets",
            "client",
            "logging",
            "http",
            "secrets",
            "keyvalue",
            "config"
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
            "block_secrets",
            "keyvalue",
            "config"
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

#[test]
fn each_capability_is_held_under_its_name_and_reads_only_registered_others() {
    assert_eq!(FIELDS, NAMES);
    for (reader, reads) in NAMES.iter().zip(READS) {
        for read in *reads {
            assert!(
                NAMES.contains(read),
                "{reader} reads {read}, which is not registered"
            );
            assert_ne!(reader, read, "{reader} reads itself");
        }
    }
}

#[test]
fn a_capability_reads_only_what_it_declares_and_what_is_resolved_before_it() {
    let grants = Grants::default();
    // The secrets capability declares `http`, resolved before it.
    let secrets = Others::resolving::<secrets::SecretsPolicy>(&grants);
    assert!(secrets.get::<HttpPolicy>().is_ok());
    assert_eq!(
        secrets.get::<env::EnvPolicy>(),
        Err(Unreadable::Undeclared {
            reader: "secrets",
            read: "env"
        })
    );
    // HTTP declares `secrets`, resolved after it: readable at call time only.
    let http = Others::resolving::<HttpPolicy>(&grants);
    assert_eq!(
        http.get::<secrets::SecretsPolicy>(),
        Err(Unreadable::NotResolved {
            reader: "http",
            read: "secrets"
        })
    );
    assert!(
        Others::of::<HttpPolicy>(&grants)
            .get::<secrets::SecretsPolicy>()
            .is_ok()
    );
}
