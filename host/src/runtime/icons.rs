//! Tool icons (WIT 0.2.0): the runtime's own type, and the checks a
//! plugin's icons pass at load. An icon's `src` is an `https:` URL (the
//! client fetches it) or a `data:` URI holding an image, of bounded size;
//! its MIME type, sizes and count are bounded too.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use super::bindings::types as wit;
use super::error::clip;
use super::units::bytes;

/// The most icons one tool may have.
pub const MAX_ICONS: usize = 8;
/// The longest `src` an icon may have, in bytes (a `data:` URI holds the
/// whole image).
pub const MAX_SRC_BYTES: usize = 64 << 10;
/// The most sizes one icon may list.
const MAX_SIZES: usize = 8;
/// The longest MIME type or size.
const MAX_TOKEN: usize = 100;

/// The theme an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum IconTheme {
    /// A light background.
    Light,
    /// A dark background.
    Dark,
}

/// An icon a client may show for a tool, checked.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Icon {
    /// An `https:` URL or a `data:` URI.
    pub src: String,
    /// The image's MIME type, if the plugin gave one.
    pub mime_type: Option<String>,
    /// `WxH` sizes or `any`; empty: not said.
    pub sizes: Vec<String>,
    /// The theme it suits; `None`: any.
    pub theme: Option<IconTheme>,
}

impl From<wit::Icon> for Icon {
    fn from(i: wit::Icon) -> Self {
        Icon {
            src: i.src,
            mime_type: i.mime_type,
            sizes: i.sizes,
            theme: i.theme.map(|t| match t {
                wit::IconTheme::Light => IconTheme::Light,
                wit::IconTheme::Dark => IconTheme::Dark,
            }),
        }
    }
}

/// The bytes `icons` add to a plugin's tool list.
pub(crate) fn size(icons: &[wit::Icon]) -> usize {
    icons
        .iter()
        .map(|i| {
            i.src.len()
                + i.mime_type.as_ref().map_or(0, String::len)
                + i.sizes.iter().map(String::len).sum::<usize>()
        })
        .sum()
}

/// Checks a tool's icons; the error says which one and why, in a sentence
/// that names no more than a clipped piece of what the plugin sent.
pub(crate) fn check(icons: &[wit::Icon]) -> Result<(), String> {
    if icons.len() > MAX_ICONS {
        return Err(format!(
            "it has {} icons, over the limit of {MAX_ICONS}",
            icons.len()
        ));
    }
    for (n, icon) in icons.iter().enumerate() {
        check_one(icon).map_err(|problem| format!("icon {}: {problem}", n + 1))?;
    }
    Ok(())
}

fn check_one(icon: &wit::Icon) -> Result<(), String> {
    let src = &icon.src;
    if src.len() > MAX_SRC_BYTES {
        return Err(format!(
            "its `src` is {}, over the limit of {}",
            bytes(src.len() as u64),
            bytes(MAX_SRC_BYTES as u64)
        ));
    }
    let shown = || clip(src.clone(), 60);
    match src.split_once(':') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("data") => check_data(rest)
            .map_err(|why| format!("its `src` is not a valid `data:` URI ({why}): {}", shown()))?,
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("https") => {
            let uri = src
                .parse::<http::Uri>()
                .map_err(|e| format!("its `src` is not a valid URL ({e}): {}", shown()))?;
            if uri.host().is_none_or(str::is_empty) {
                return Err(format!("its `src` URL has no host: {}", shown()));
            }
        }
        _ => {
            return Err(format!(
                "its `src` must be an `https:` URL or a `data:` URI: {}",
                shown()
            ));
        }
    }
    if let Some(mime) = &icon.mime_type
        && !is_image_type(mime)
    {
        return Err(format!(
            "its MIME type {:?} is not an image type (`image/…`)",
            clip(mime.clone(), MAX_TOKEN)
        ));
    }
    if icon.sizes.len() > MAX_SIZES {
        return Err(format!(
            "it lists {} sizes, over the limit of {MAX_SIZES}",
            icon.sizes.len()
        ));
    }
    if let Some(bad) = icon.sizes.iter().find(|s| !is_size(s)) {
        return Err(format!(
            "its size {:?} is neither `WxH` (such as `48x48`) nor `any`",
            clip(bad.clone(), MAX_TOKEN)
        ));
    }
    Ok(())
}

/// `image/<subtype>`, printable and short.
fn is_image_type(mime: &str) -> bool {
    mime.len() <= MAX_TOKEN
        && mime
            .strip_prefix("image/")
            .is_some_and(|sub| !sub.is_empty() && sub.bytes().all(|b| b.is_ascii_graphic()))
}

/// `any`, or `WxH` with positive decimal numbers.
fn is_size(size: &str) -> bool {
    let number = |n: &str| {
        !n.is_empty()
            && n.len() <= 5
            && !n.starts_with('0')
            && n.bytes().all(|b| b.is_ascii_digit())
    };
    size == "any"
        || size
            .split_once('x')
            .is_some_and(|(w, h)| number(w) && number(h))
}

/// The part of a `data:` URI after the scheme: `image/<subtype>`, optional
/// parameters, then `;base64,` and valid base64 or `,` and the text.
fn check_data(rest: &str) -> Result<(), &'static str> {
    let (header, payload) = rest.split_once(',').ok_or("no `,` before the data")?;
    let mut parts = header.split(';');
    let mime = parts.next().unwrap_or_default();
    if !is_image_type(mime) {
        return Err("its media type is not `image/…`");
    }
    if parts.any(|p| p.eq_ignore_ascii_case("base64")) {
        STANDARD
            .decode(payload)
            .map_err(|_| "its data is not valid base64")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn icon(src: &str) -> wit::Icon {
        wit::Icon {
            src: src.into(),
            mime_type: None,
            sizes: Vec::new(),
            theme: None,
        }
    }

    #[test]
    fn https_urls_and_image_data_uris_pass() {
        for src in [
            "https://example.com/icon.png",
            "HTTPS://example.com/a/b.svg?x=1",
            "data:image/svg+xml;base64,PHN2Zy8+",
            "data:image/svg+xml,%3Csvg%2F%3E",
            "data:image/png;base64,",
        ] {
            assert_eq!(check(&[icon(src)]), Ok(()), "{src}");
        }
        let mut full = icon("https://example.com/i.png");
        full.mime_type = Some("image/png".into());
        full.sizes = vec!["48x48".into(), "any".into()];
        full.theme = Some(wit::IconTheme::Dark);
        assert_eq!(check(&[full]), Ok(()));
    }

    #[test]
    fn every_other_icon_is_refused_saying_which_and_why() {
        let refused = |i: wit::Icon| check(&[icon("https://ok.example/i.png"), i]).unwrap_err();
        let e = refused(icon("http://example.com/i.png"));
        assert_eq!(
            e,
            "icon 2: its `src` must be an `https:` URL or a `data:` URI: http://example.com/i.png"
        );
        assert!(refused(icon("javascript:alert(1)")).contains("must be an `https:` URL"));
        assert!(refused(icon("file:///etc/passwd")).contains("must be an `https:` URL"));
        assert!(refused(icon("https:///nohost")).contains("icon 2: its `src`"));
        assert!(refused(icon("data:text/html,<b>")).contains("media type is not `image/…`"));
        assert!(refused(icon("data:image/png;base64,@@@")).contains("not valid base64"));
        assert!(refused(icon("data:image/png")).contains("no `,`"));
        let huge = format!("data:image/png;base64,{}", "A".repeat(MAX_SRC_BYTES));
        let e = refused(icon(&huge));
        assert!(
            e.contains("over the limit of 64 KiB") && e.len() < 200,
            "{e}"
        );
        let mut bad_type = icon("https://example.com/i");
        bad_type.mime_type = Some("text/html".into());
        assert!(refused(bad_type).contains("\"text/html\" is not an image type"));
        let mut bad_size = icon("https://example.com/i");
        bad_size.sizes = vec!["big".into()];
        assert!(refused(bad_size).contains("size \"big\""));
        let many: Vec<_> = (0..=MAX_ICONS)
            .map(|_| icon("https://example.com/i"))
            .collect();
        assert_eq!(
            check(&many).unwrap_err(),
            "it has 9 icons, over the limit of 8"
        );
    }
}
