//! Unit tests of `scaffold`.
#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn names_of_lowercase_letters_digits_dashes_and_underscores_are_accepted() {
    for name in [
        "a",
        "hello",
        "my-tools",
        "my_tools2",
        &"x".repeat(MAX_NAME_LEN),
    ] {
        assert_eq!(ProjectName::parse(name).unwrap().as_str(), name);
    }
}

#[test]
fn names_that_some_language_could_not_use_are_refused_saying_why() {
    for (name, problem) in [
        ("", "is empty"),
        ("1st", "does not start with a lowercase letter"),
        ("-x", "does not start with a lowercase letter"),
        ("_x", "does not start with a lowercase letter"),
        ("Tools", "does not start with a lowercase letter"),
        ("my.tools", "holds a character"),
        ("my tools", "holds a character"),
        ("myTools", "holds a character"),
        ("tööls", "holds a character"),
        ("../x", "does not start"),
        ("a/b", "holds a character"),
        (&"x".repeat(MAX_NAME_LEN + 1), "is too long"),
    ] {
        let error = ProjectName::parse(name).unwrap_err().to_string();
        assert!(error.contains(problem), "{name:?}: {error}");
        assert!(error.contains("a-z, 0-9, `-` and `_`"), "{error}");
    }
}

#[test]
fn every_language_with_a_template_names_a_template_directory_and_every_directory_is_used() {
    let used: Vec<&str> = LANGUAGES.iter().map(|l| l.template).collect();
    for dir in &used {
        assert!(!template_files(dir).is_empty(), "no host/templates/{dir}/");
    }
    for (dir, _) in TEMPLATES {
        assert!(used.contains(dir), "host/templates/{dir}/ is no language's");
    }
}

fn rendered(lang: &Language, source: SdkSource) -> Vec<ProjectFile> {
    let name = ProjectName::parse("my-tool").unwrap();
    render_project(lang, &name, source).unwrap()
}

/// Both sources of the SDK (the checkout at a path with a space and an
/// at sign).
fn sources() -> [SdkSource<'static>; 2] {
    [
        SdkSource::Packages,
        SdkSource::Checkout(Path::new("/opt/mcp wasm@host")),
    ]
}

/// The first `@KEY@` in `text`.
fn placeholder_in(text: &str) -> Option<&str> {
    text.match_indices('@').find_map(|(at, _)| {
        let rest = &text[at + 1..];
        let len = rest.find(|c: char| !(c.is_ascii_uppercase() || c == '_'))?;
        (len > 0 && rest[len..].starts_with('@')).then(|| &rest[..len])
    })
}

#[test]
fn placeholders_are_found_wherever_they_stand() {
    assert_eq!(
        placeholder_in("@tool\n@dataclass x @NAME_X@ y"),
        Some("NAME_X")
    );
    assert_eq!(
        placeholder_in("a@b.c @modelcontextprotocol/inspector @ @@"),
        None
    );
}

#[test]
fn every_template_fills_all_its_placeholders() {
    for (lang, source) in LANGUAGES.iter().flat_map(|l| sources().map(|s| (l, s))) {
        for file in rendered(lang, source) {
            for text in [&file.path, &file.contents] {
                let left = placeholder_in(text);
                assert_eq!(
                    left, None,
                    "{}: {} has a placeholder left",
                    lang.name, file.path
                );
            }
        }
    }
}

#[test]
fn a_project_names_its_sdk_by_version_or_by_the_checkout_path_given() {
    for lang in LANGUAGES {
        let dependency_file = match lang.name {
            "rust" => "Cargo.toml",
            "python" => "requirements.txt",
            "ts" | "js" => "package.json",
            "go" => "go.mod",
            _ => "config.sh",
        };
        let packaged = rendered(lang, SdkSource::Packages);
        let file = packaged.iter().find(|f| f.path == dependency_file).unwrap();
        assert!(
            file.contents.contains(source::SDK_VERSION),
            "{}: {dependency_file} names no SDK version",
            lang.name
        );
        for file in &packaged {
            assert!(
                !file.contents.contains("/opt/") && !file.contents.contains("sdk-guest"),
                "{}: {} names a path",
                lang.name,
                file.path
            );
        }
        let checkout = rendered(lang, sources()[1]);
        assert!(
            checkout
                .iter()
                .any(|f| f.path != "README.md" && f.contents.contains("/opt/mcp wasm@host/")),
            "{}: no build file names the checkout",
            lang.name
        );
    }
}

#[test]
fn every_project_has_a_readme_with_its_build_and_test_commands() {
    for lang in LANGUAGES {
        let files = rendered(lang, SdkSource::Packages);
        let readme = files.iter().find(|f| f.path == "README.md").unwrap();
        let commands = ReadmeCommands::of(&readme.contents);
        assert!(
            commands.build.is_some_and(|c| !c.is_empty()),
            "{}",
            lang.name
        );
        assert!(
            commands.test.is_some_and(|c| !c.is_empty()),
            "{}",
            lang.name
        );
        assert!(
            readme
                .contents
                .contains("npx @modelcontextprotocol/inspector mcp-wasm-host serve")
        );
    }
}

#[test]
fn placeholders_are_replaced_in_one_pass_and_other_at_signs_are_kept() {
    let vars = [("NAME", "@SDK@"), ("SDK", "/sdk")];
    assert_eq!(
        render("@NAME@ at @SDK@, @tool @NAMES@ a@b", &vars),
        "@SDK@ at /sdk, @tool @NAMES@ a@b"
    );
    assert_eq!(render("@", &vars), "@");
    assert_eq!(render("x@NAME", &vars), "x@NAME");
}

#[test]
fn dot_files_are_written_with_their_dot() {
    assert_eq!(dotted("dot-gitignore"), ".gitignore");
    assert_eq!(dotted("a/dot-env/b"), "a/.env/b");
    assert_eq!(dotted("src/dotty.rs"), "src/dotty.rs");
    assert_eq!(dotted("Cargo.toml.tmpl"), "Cargo.toml");
}

#[test]
fn sdk_paths_that_build_files_cannot_hold_are_refused() {
    for bad in ["/a\"b", "/a\\b", "/$HOME", "/a`b", "/a\nb", "/a\tb"] {
        assert!(
            matches!(
                check_sdk_path(Path::new(bad)),
                Err(NewError::SdkPath { .. })
            ),
            "{bad:?}"
        );
    }
    for good in ["/opt/mcp-wasm-host", "/home/a b/c@d", "/x/y'z"] {
        check_sdk_path(Path::new(good)).unwrap();
    }
}

#[test]
fn readme_commands_are_the_first_sh_block_under_their_heading() {
    let readme = "# x\n## Build\n\ntext\n```toml\nno\n```\n```sh\nmake\nmake all\n```\n```sh\nno\n```\n## Test\n### Sub\n```sh\nno\n```\n";
    let commands = ReadmeCommands::of(readme);
    assert_eq!(commands.build.as_deref(), Some("make\nmake all"));
    assert_eq!(
        commands.test, None,
        "a block under a later heading is not the test's"
    );
}

#[test]
fn a_failed_write_removes_what_it_wrote() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("new/project");
    let files = [
        ProjectFile {
            path: "src/a.txt".into(),
            contents: "a".into(),
        },
        ProjectFile {
            path: "src/a.txt".into(),
            contents: "again".into(),
        },
    ];
    let error = write_project(&dir, &files).unwrap_err();
    assert!(matches!(error, NewError::Write { .. }), "{error}");
    assert!(
        !root.path().join("new").exists(),
        "everything made is removed"
    );
}
