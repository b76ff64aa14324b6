//! Unit tests of `profiles`: parsing (errors name the key) and what a
//! profile admits.
use crate::config::tests::parse;
use crate::runtime::ToolHints;

fn profile(text: &str, name: &str) -> std::sync::Arc<super::Profile> {
    parse(text).unwrap().profiles()[name].clone()
}

fn error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn a_profile_selects_by_plugin_name_and_annotation_with_exclusions() {
    let p = profile(
        r#"
[profiles.readers]
plugins = ["text", "json"]
tools = ["word_*", "json.*", "upper"]
exclude_tools = ["word_delete"]
annotations = ["read_only"]
"#,
        "readers",
    );
    let ro = ToolHints {
        read_only: Some(true),
        ..ToolHints::default()
    };
    let rw = ToolHints::default();
    assert!(p.admits_tool("text", "word_count", "word_count", &ro));
    assert!(
        !p.admits_tool("text", "word_count", "word_count", &rw),
        "not read-only"
    );
    assert!(
        !p.admits_tool("text", "word_delete", "word_delete", &ro),
        "excluded"
    );
    assert!(
        !p.admits_tool("other", "word_count", "word_count", &ro),
        "plugin not named"
    );
    assert!(
        !p.admits_tool("text", "reverse", "reverse", &ro),
        "no pattern matches"
    );
    // A pattern matches the served name or the plugin's own.
    assert!(p.admits_tool("json", "json.format", "format", &ro));
    assert!(p.admits_tool("text", "text.upper", "upper", &ro));
    // Resources and prompts: every one of the named plugins by default.
    assert!(p.admits_resource("text", "file:///a"));
    assert!(!p.admits_resource("other", "file:///a"));
    assert!(p.admits_prompt("json", "explain"));
}

#[test]
fn resources_and_prompts_have_their_own_patterns_and_exclusions() {
    let p = profile(
        r#"
[profiles.docs]
exclude_plugins = ["secret"]
tools = []
resources = ["docs://*"]
exclude_resources = ["docs://private/*"]
prompts = ["summarize*"]
exclude_prompts = ["summarize_all"]
"#,
        "docs",
    );
    let hints = ToolHints::default();
    assert!(
        !p.admits_tool("text", "upper", "upper", &hints),
        "tools = [] admits none"
    );
    assert!(p.admits_resource("text", "docs://readme"));
    assert!(!p.admits_resource("text", "docs://private/key"));
    assert!(!p.admits_resource("secret", "docs://readme"));
    assert!(!p.admits_resource("text", "file:///etc"));
    assert!(p.admits_prompt("text", "summarize_one"));
    assert!(!p.admits_prompt("text", "summarize_all"));
    assert!(!p.admits_prompt("text", "explain"));
}

#[test]
fn the_annotations_follow_the_hints_and_mcp_defaults() {
    let p = profile(
        "[profiles.safe]\nannotations = [\"non_destructive\", \"closed_world\", \"idempotent\"]\n",
        "safe",
    );
    let safe = ToolHints {
        destructive: Some(false),
        open_world: Some(false),
        idempotent: Some(true),
        ..ToolHints::default()
    };
    assert!(p.admits_tool("a", "t", "t", &safe));
    // Unset hints take MCP's defaults: destructive, open world.
    assert!(!p.admits_tool(
        "a",
        "t",
        "t",
        &ToolHints {
            idempotent: Some(true),
            ..ToolHints::default()
        }
    ));
}

#[test]
fn bad_profiles_are_refused_naming_the_key() {
    let e = error("[profiles.a]\ntool = [\"x\"]\n");
    assert!(e.contains("unknown field `tool`"), "{e}");
    let e = error("[profiles.a]\ntools = [\"\"]\n");
    assert!(e.contains("`profiles.a.tools`: an empty pattern"), "{e}");
    let e = error("[profiles.a]\nannotations = [\"readonly\"]\n");
    assert!(
        e.contains("`profiles.a.annotations`: unknown annotation \"readonly\"; expected one of read_only, idempotent, non_destructive, closed_world"),
        "{e}"
    );
    let e = error("[profiles.a]\nplugins = [\"../x\"]\n");
    assert!(e.contains("`profiles.a.plugins`"), "{e}");
    let e = error("[profiles.\"a/b\"]\n");
    assert!(
        e.contains("`profiles.\"a/b\"`: \"a/b\" is not a profile name"),
        "{e}"
    );
    let e = error("[profiles.a]\nexclude_prompts = \"x\"\n");
    assert!(e.contains("exclude_prompts"), "{e}");
    let e = error("[profiles.a]\nsubjects = [\"alice\", \"\"]\n");
    assert!(e.contains("`profiles.a.subjects`: an empty entry"), "{e}");
    let e = error("[profiles.a]\nscopes = [\"\"]\n");
    assert!(e.contains("`profiles.a.scopes`: an empty entry"), "{e}");
}

#[test]
fn a_profile_binds_the_callers_of_its_subjects_and_scopes() {
    let text = r#"
[profiles.alice]
subjects = ["alice"]

[profiles.data]
scopes = ["data", "admin"]

[profiles.open]
"#;
    let set = super::Profiles::new(parse(text).unwrap().profiles().clone());
    let caller = |subject: &str, scopes: &[&str]| crate::runtime::Principal {
        subject: subject.into(),
        scopes: scopes.iter().map(|s| s.to_string()).collect(),
    };
    let names = |p: crate::runtime::Principal| -> Vec<String> {
        set.bound_for(&p)
            .iter()
            .map(|p| p.name().to_string())
            .collect()
    };
    assert_eq!(names(caller("alice", &[])), ["alice"]);
    assert_eq!(names(caller("alice", &["admin"])), ["alice", "data"]);
    assert_eq!(names(caller("bob", &["data"])), ["data"]);
    // Exact matches only: no prefix, no case folding.
    assert!(names(caller("Alice", &["dat", "DATA"])).is_empty());
}

#[test]
fn a_replaced_set_is_told_only_when_it_changed() {
    let config = parse("[profiles.a]\ntools = [\"x\"]\n").unwrap();
    let profiles = super::Profiles::new(config.profiles().clone());
    let mut seen = profiles.subscribe();
    seen.borrow_and_update();
    profiles.replace(config.profiles().clone());
    assert!(!seen.has_changed().unwrap());
    let other = parse("[profiles.a]\ntools = [\"y\"]\n").unwrap();
    profiles.replace(other.profiles().clone());
    assert!(seen.has_changed().unwrap());
    assert_eq!(profiles.names(), ["a"]);
    assert!(profiles.get("b").is_none());
}

#[test]
fn a_binding_without_oauth_is_reported_and_with_it_its_scopes_are_supported() {
    let profiles = r#"
[profiles.team]
scopes = ["team-data"]
subjects = ["svc-ci"]
"#;
    let (catalog, _) = crate::runtime::Catalog::build(Vec::new());
    let lines = parse(profiles).unwrap().profile_report(&catalog);
    for key in ["subjects", "scopes"] {
        assert!(
            lines.iter().any(|l| l
                == &format!("`profiles.team.{key}`: binds no caller: the server checks no OAuth token (`[server.oauth]` is not set)")),
            "{lines:?}"
        );
    }
    let oauth = r#"
[server.oauth]
issuer = "https://idp.example.test"
audience = "https://mcp.example.test/mcp"
jwks_uri = "https://idp.example.test/jwks"
"#;
    let config = parse(&format!("{oauth}{profiles}")).unwrap();
    assert!(config.profile_report(&catalog).is_empty());
    let settings = config.oauth().unwrap();
    assert!(
        settings.scopes_supported.contains(&"team-data".to_string()),
        "{:?}",
        settings.scopes_supported
    );
}
