//! Tool icons (WIT 0.2.0): the runtime's own type, and the checks a
//! plugin's icons pass at load. An icon's `src` is an `https:` URL (the
//! client fetches it) or a `data:` URI holding an image, of bounded size;
//! its MIME type, sizes and count are bounded too.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::error::clip;
use crate::load::bindings::types as wit;
use crate::units::bytes;

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

/// Why a tool's icons are refused: which one and why, in a sentence that
/// names no more than a clipped piece of what the plugin sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IconsError {
    /// More than [`MAX_ICONS`] (how many).
    #[error("it has {0} icons, over the limit of {MAX_ICONS}")]
    TooMany(usize),
    /// The icon at `number` (from 1) is refused.
    #[error("icon {number}: {problem}")]
    Icon {
        /// Which icon, counting from 1.
        number: usize,
        /// Why.
        problem: IconProblem,
    },
}

/// What is wrong with one icon; each shows at most a clipped piece of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IconProblem {
    /// The `src` is over [`MAX_SRC_BYTES`] (its length).
    #[error(
        "its `src` is {}, over the limit of {}",
        src_bytes(.0),
        src_bytes(&MAX_SRC_BYTES)
    )]
    SrcTooLong(usize),
    /// A `data:` URI that is not one (why, and the clipped `src`).
    #[error("its `src` is not a valid `data:` URI ({0}): {1}")]
    Data(&'static str, String),
    /// An `https:` URL that does not parse (why, and the clipped `src`).
    #[error("its `src` is not a valid URL ({0}): {1}")]
    Url(String, String),
    /// An `https:` URL without a host (the clipped `src`).
    #[error("its `src` URL has no host: {0}")]
    NoHost(String),
    /// Another scheme (the clipped `src`).
    #[error("its `src` must be an `https:` URL or a `data:` URI: {0}")]
    Scheme(String),
    /// A MIME type that is not `image/…` (clipped).
    #[error("its MIME type {0:?} is not an image type (`image/…`)")]
    Mime(String),
    /// More than the sizes allowed (how many).
    #[error("it lists {0} sizes, over the limit of {MAX_SIZES}")]
    TooManySizes(usize),
    /// A size that is neither `WxH` nor `any` (clipped).
    #[error("its size {0:?} is neither `WxH` (such as `48x48`) nor `any`")]
    Size(String),
}

/// A length in bytes, as people read it.
fn src_bytes(len: &usize) -> String {
    bytes(*len as u64)
}

/// Checks a tool's icons; the error says which one and why, in a sentence
/// that names no more than a clipped piece of what the plugin sent.
pub(crate) fn check(icons: &[wit::Icon]) -> Result<(), IconsError> {
    if icons.len() > MAX_ICONS {
        return Err(IconsError::TooMany(icons.len()));
    }
    for (n, icon) in icons.iter().enumerate() {
        check_one(icon).map_err(|problem| IconsError::Icon {
            number: n + 1,
            problem,
        })?;
    }
    Ok(())
}

fn check_one(icon: &wit::Icon) -> Result<(), IconProblem> {
    let src = &icon.src;
    if src.len() > MAX_SRC_BYTES {
        return Err(IconProblem::SrcTooLong(src.len()));
    }
    let shown = || clip(src.clone(), 60);
    match src.split_once(':') {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("data") => {
            check_data(rest).map_err(|why| IconProblem::Data(why, shown()))?;
        }
        Some((scheme, _)) if scheme.eq_ignore_ascii_case("https") => {
            let uri = src
                .parse::<http::Uri>()
                .map_err(|e| IconProblem::Url(e.to_string(), shown()))?;
            if uri.host().is_none_or(str::is_empty) {
                return Err(IconProblem::NoHost(shown()));
            }
        }
        _ => return Err(IconProblem::Scheme(shown())),
    }
    if let Some(mime) = &icon.mime_type
        && !is_image_type(mime)
    {
        return Err(IconProblem::Mime(clip(mime.clone(), MAX_TOKEN)));
    }
    if icon.sizes.len() > MAX_SIZES {
        return Err(IconProblem::TooManySizes(icon.sizes.len()));
    }
    if let Some(bad) = icon.sizes.iter().find(|s| !is_size(s)) {
        return Err(IconProblem::Size(clip(bad.clone(), MAX_TOKEN)));
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
        let refused = |i: wit::Icon| {
            check(&[icon("https://ok.example/i.png"), i])
                .unwrap_err()
                .to_string()
        };
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
            check(&many).unwrap_err().to_string(),
            "it has 9 icons, over the limit of 8"
        );
    }
}
