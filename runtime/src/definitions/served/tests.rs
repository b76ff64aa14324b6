//! Unit tests of `runtime::served`.
use super::*;

fn matches_template(template: &str, uri: &str) -> bool {
    let listing = Listing {
        templates: vec![wr::ResourceTemplate {
            uri_template: template.into(),
            name: "t".into(),
            title: None,
            description: None,
            mime_type: None,
            annotations: None,
            icons: Vec::new(),
        }],
        ..Listing::default()
    };
    check(listing, &HashSet::new()).unwrap().templates[0].matches(uri)
}

#[test]
fn templates_match_a_segment_or_any_text() {
    assert!(matches_template(
        "test://template/{id}/data",
        "test://template/123/data"
    ));
    assert!(!matches_template(
        "test://template/{id}/data",
        "test://template/1/2/data"
    ));
    assert!(!matches_template(
        "test://template/{id}/data",
        "test://template//data"
    ));
    assert!(matches_template("file:///{+path}", "file:///a/b/c.txt"));
    assert!(matches_template("x://{a}-{b}", "x://1-2-3"));
    assert!(!matches_template("x://fixed", "x://other"));
}

#[test]
fn uris_and_templates_are_checked() {
    assert!(check_uri("test://static-text").is_ok());
    assert!(check_uri("ui://csvview/chart.html").is_ok());
    assert!(check_uri("no-scheme").is_err());
    assert!(check_uri("1x://a").is_err());
    assert!(check_uri("a://b c").is_err());
    assert!(check_uri(&format!("a://{}", "b".repeat(MAX_URI))).is_err());
    assert!(check_template("a://{id}/{+rest}").is_ok());
    assert!(check_template("a://{id").is_err());
    assert!(check_template("a://id}").is_err());
    assert!(check_template("a://{}").is_err());
}

fn resource(uri: &str, view: bool) -> wr::ResourceDefinition {
    wr::ResourceDefinition {
        uri: uri.into(),
        name: "n".into(),
        title: None,
        description: None,
        mime_type: view.then(|| VIEW_MIME_TYPE.into()),
        size: None,
        annotations: None,
        icons: Vec::new(),
        view: view.then_some(wr::ViewSettings {
            csp: None,
            permissions: None,
            domain: None,
            prefers_border: None,
        }),
    }
}

#[test]
fn a_tool_view_must_name_a_listed_view_of_a_listed_tool() {
    let tools: HashSet<&str> = ["chart"].into();
    let views = |tool: &str, uri: &str| Listing {
        resources: vec![resource("ui://p/v.html", true), resource("p://doc", false)],
        views: vec![wr::ToolView {
            tool: tool.into(),
            resource_uri: uri.into(),
            model_visible: true,
        }],
        ..Listing::default()
    };
    let ok = check(views("chart", "ui://p/v.html"), &tools).unwrap();
    assert_eq!(ok.views["chart"].resource_uri, "ui://p/v.html");
    assert!(check(views("other", "ui://p/v.html"), &tools).is_err());
    assert!(check(views("chart", "p://doc"), &tools).is_err());
    let mut bad = resource("p://v.html", true);
    bad.mime_type = Some(VIEW_MIME_TYPE.into());
    let refused = check(
        Listing {
            resources: vec![bad],
            ..Listing::default()
        },
        &tools,
    )
    .unwrap_err();
    assert!(refused.1.contains("ui://"), "{refused:?}");
}
