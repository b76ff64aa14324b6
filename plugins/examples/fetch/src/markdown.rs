//! HTML to readable Markdown, dropping what a reader does not see (scripts,
//! styles, the head), and telling HTML from other content.

use std::sync::OnceLock;

use htmd::HtmlToMarkdown;

/// Elements whose content is not part of the readable page.
const DROPPED: &[&str] = &[
    "head", "script", "style", "noscript", "template", "iframe", "svg", "canvas",
];

/// Whether a response is HTML: by its content type, or, without one, by how
/// it starts.
pub fn is_html(content_type: Option<&str>, text: &str) -> bool {
    match content_type {
        Some(t) => {
            let t = t.to_ascii_lowercase();
            t.contains("text/html") || t.contains("application/xhtml")
        }
        None => {
            let head: String = text.chars().take(256).collect::<String>().to_lowercase();
            head.contains("<html") || head.contains("<!doctype html")
        }
    }
}

/// The page as Markdown.
pub fn convert(html: &str) -> String {
    static CONVERTER: OnceLock<HtmlToMarkdown> = OnceLock::new();
    let converter = CONVERTER.get_or_init(|| {
        HtmlToMarkdown::builder()
            .skip_tags(DROPPED.to_vec())
            .build()
    });
    // Parsing reads from a string in memory, which cannot fail; keep the
    // text rather than fail the call if it ever does.
    converter.convert(html).unwrap_or_else(|_| html.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_links_and_lists_become_markdown_and_scripts_and_styles_go() {
        let md = convert(
            "<html><head><title>T</title><style>p{color:red}</style></head><body>\
             <h1>Title</h1><p>See <a href=\"https://example.com/\">this</a>.</p>\
             <ul><li>one</li><li>two</li></ul><script>alert(1)</script></body></html>",
        );
        assert!(md.contains("# Title"), "{md}");
        assert!(md.contains("[this](https://example.com/)"), "{md}");
        assert!(md.contains("one") && md.contains("two"), "{md}");
        for gone in ["alert", "color:red"] {
            assert!(!md.contains(gone), "{md}");
        }
    }

    #[test]
    fn html_is_told_by_content_type_or_by_its_start() {
        assert!(is_html(Some("text/html; charset=utf-8"), ""));
        assert!(!is_html(Some("text/plain"), "<html>"));
        assert!(is_html(None, "<!DOCTYPE html><html>"));
        assert!(!is_html(None, "plain words"));
    }
}
