//! Unit tests of `runtime::capabilities::secrets`.
use super::*;
use std::path::Path;

fn spec(text: &str) -> SecretsSpec {
    toml::from_str(text).unwrap()
}

#[test]
fn values_come_from_the_environment_or_a_private_file_and_never_print() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "file-secret-value\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    }
    // Setting a variable needs `unsafe` (edition 2024), which the crate
    // denies; PATH is set wherever tests run.
    let var = "PATH";
    let path = std::env::var(var).unwrap();
    let s = spec(&format!(
        "A = {{ env = \"{var}\", origin = \"https://api.example.com\", header = \"Authorization\", value = \"Bearer {{secret}}\" }}\nB = {{ file = \"token\", expose = true }}\n"
    ));
    check(&s).unwrap();
    let p = resolve(&s, dir.path()).unwrap();
    assert_eq!(
        p.exposed().collect::<Vec<_>>(),
        [("B", "file-secret-value")]
    );
    let (secret, injection) = p.injections().next().unwrap();
    let header = secret.header_value(injection).unwrap();
    assert_eq!(header.to_str().unwrap(), format!("Bearer {path}"));
    assert!(header.is_sensitive());
    let printed = format!("{p:?} {:?} {}", p.report(), p.json());
    assert!(
        !printed.contains(&path) && !printed.contains("file-secret-value"),
        "{printed}"
    );
    assert_eq!(
        p.redact(&format!("token={path} and file-secret-value!")),
        "token=[redacted] and [redacted]!"
    );
    assert!(matches!(p.redact("nothing here"), Cow::Borrowed(_)));
}

#[cfg(unix)]
#[test]
fn a_file_others_can_read_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "x").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let e = resolve(&spec("A = { file = \"token\", expose = true }"), dir.path()).unwrap_err();
    assert_eq!(e.key, "secrets.A.file");
    assert!(
        e.problem.contains("0644") && e.problem.contains("chmod 600"),
        "{e}"
    );
}

#[cfg(unix)]
#[test]
fn a_group_may_read_a_file_only_when_root_owns_it_and_never_write_it() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "x").unwrap();
    let spec = spec("A = { file = \"token\", expose = true }");
    let root_owned = std::fs::metadata(&file).unwrap().uid() == 0;
    for (mode, by_root, by_others) in [
        (0o400, true, true),
        (0o600, true, true),
        (0o440, true, false),
        (0o640, true, false),
        (0o660, false, false),
        (0o604, false, false),
        (0o644, false, false),
    ] {
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
        let accepted = resolve(&spec, dir.path()).is_ok();
        let expected = if root_owned { by_root } else { by_others };
        assert_eq!(
            accepted, expected,
            "mode {mode:04o}, root-owned: {root_owned}"
        );
    }
}

#[test]
fn a_missing_variable_names_the_key_and_the_variable() {
    let e = resolve(
        &spec("A = { env = \"MCP_WASM_HOST_TEST_SURELY_UNSET\", expose = true }"),
        Path::new("."),
    )
    .unwrap_err();
    assert_eq!(e.key, "secrets.A");
    assert!(e.problem.contains("MCP_WASM_HOST_TEST_SURELY_UNSET"), "{e}");
}

#[test]
fn specs_are_checked_before_any_value_is_read() {
    for (text, says) in [
        ("A = { expose = true }", "where the value comes from"),
        (
            "A = { env = \"X\", file = \"f\", expose = true }",
            "not both",
        ),
        ("A = { env = \"X\" }", "neither injected"),
        (
            "A = { env = \"X\", origin = \"https://a.b\" }",
            "both `origin` and `header`",
        ),
        (
            "A = { env = \"X\", origin = \"a.b\", header = \"H\" }",
            "needs a scheme",
        ),
        (
            "A = { env = \"X\", origin = \"https://a.b\", header = \"Host\" }",
            "frames the request",
        ),
        (
            "A = { env = \"X\", origin = \"https://a.b\", header = \"H\", value = \"Bearer\" }",
            "{secret}",
        ),
        ("1A = { env = \"X\", expose = true }", "letters, digits"),
    ] {
        let e = check(&spec(text)).unwrap_err();
        assert!(
            e.problem.contains(says) && e.key.starts_with("secrets."),
            "{text}: {e:?}"
        );
    }
    assert!(toml::from_str::<SecretsSpec>("A = { env = \"X\", value_of = 1 }").is_err());
}
