//! Example plugin: encodings, digests and identifiers.
//!
//! Tools (all read-only and closed-world; all idempotent except `uuid`):
//!
//! - `hash`: the SHA-256, SHA-512, SHA-384, SHA-224, SHA-1 or MD5 digest of
//!   a text (or of bytes given as hex or base64), as hex or base64.
//! - `base64_encode`: encodes a text (or hex bytes) as base64, standard or
//!   URL-safe alphabet, with or without padding.
//! - `base64_decode`: decodes base64 (either alphabet, padding optional,
//!   whitespace ignored) to text, or to hex/base64 when the bytes are not
//!   UTF-8.
//! - `hex_encode`: encodes a text's UTF-8 bytes as hex.
//! - `hex_decode`: decodes hex (whitespace, `0x` and `:` separators ignored)
//!   to text, or shows the bytes as hex/base64.
//! - `uuid`: generates 1 to 100 random (version 4) UUIDs from WASI's
//!   cryptographic random source.
//! - `url_encode`: percent-encodes a text as a URL component or as
//!   `application/x-www-form-urlencoded`.
//! - `url_decode`: decodes percent-encoding, optionally with `+` as a space.

use base64::Engine as _;
use base64::alphabet::{self, Alphabet};
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::schemars;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC};
use sha2::Digest as _;

// ---------------------------------------------------------------------------
// Argument types
// ---------------------------------------------------------------------------

/// A digest algorithm.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Algorithm {
    #[default]
    Sha256,
    Sha512,
    Sha384,
    Sha224,
    Sha1,
    Md5,
}

/// How the input string is turned into the bytes to process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum InputFormat {
    /// The string's UTF-8 bytes.
    #[default]
    Text,
    /// The string is hex (whitespace, `0x` and `:` ignored).
    Hex,
    /// The string is base64 (either alphabet, padding optional).
    Base64,
}

/// How a digest is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum DigestEncoding {
    /// Lowercase hexadecimal.
    #[default]
    Hex,
    /// Standard base64 with padding.
    Base64,
}

/// Arguments of `hash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HashArgs {
    /// The data to hash: a text, or bytes written as hex or base64 (see
    /// `input_format`).
    text: String,
    /// The digest algorithm: `sha256` (default), `sha512`, `sha384`,
    /// `sha224`, `sha1` or `md5`. SHA-1 and MD5 are broken for security
    /// purposes; use them only for compatibility checksums.
    #[serde(default)]
    algorithm: Algorithm,
    /// How to read `text`: `text` (default, its UTF-8 bytes), `hex` or
    /// `base64`.
    #[serde(default)]
    input_format: InputFormat,
    /// How to write the digest: `hex` (default, lowercase) or `base64`.
    #[serde(default)]
    output_format: DigestEncoding,
}

/// Arguments of `base64_encode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Base64EncodeArgs {
    /// The data to encode: a text (its UTF-8 bytes), or bytes written as hex
    /// when `input_format` is `hex`.
    text: String,
    /// How to read `text`: `text` (default) or `hex`. (`base64` is accepted
    /// too and re-encodes, e.g. to switch alphabets.)
    #[serde(default)]
    input_format: InputFormat,
    /// Use the URL- and filename-safe alphabet (`-` and `_` instead of `+`
    /// and `/`). Default: false.
    #[serde(default)]
    url_safe: bool,
    /// Pad the output with `=` to a multiple of 4 characters. Default: true.
    #[serde(default = "defaults::bool::<true>")]
    padding: bool,
}

/// A base64 alphabet to decode with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum DecodeAlphabet {
    /// URL-safe if the data contains `-` or `_`, standard otherwise.
    #[default]
    Auto,
    /// `A-Z a-z 0-9 + /`.
    Standard,
    /// `A-Z a-z 0-9 - _`.
    UrlSafe,
}

/// How decoded bytes are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum BytesFormat {
    /// As text if the bytes are valid UTF-8, as hex otherwise.
    #[default]
    Auto,
    /// As text, with invalid UTF-8 sequences replaced by U+FFFD.
    Text,
    /// As lowercase hex.
    Hex,
    /// As standard base64 with padding.
    Base64,
}

/// Arguments of `base64_decode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Base64DecodeArgs {
    /// The base64 data. Whitespace and line breaks are ignored; padding
    /// (`=`) is optional.
    data: String,
    /// The alphabet: `auto` (default: URL-safe if the data contains `-` or
    /// `_`), `standard` or `url_safe`.
    #[serde(default)]
    alphabet: DecodeAlphabet,
    /// How to return the decoded bytes: `auto` (default: text if they are
    /// valid UTF-8, hex otherwise), `text` (invalid UTF-8 replaced by
    /// U+FFFD), `hex` or `base64`.
    #[serde(default)]
    output_format: BytesFormat,
}

/// Arguments of `hex_encode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HexEncodeArgs {
    /// The text whose UTF-8 bytes to encode.
    text: String,
    /// Use uppercase digits `A-F`. Default: false.
    #[serde(default)]
    uppercase: bool,
}

/// Arguments of `hex_decode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HexDecodeArgs {
    /// The hex data, e.g. `48656c6c6f`. Whitespace, `:` separators and a
    /// leading `0x` are ignored; digits may be upper- or lowercase.
    hex: String,
    /// How to return the decoded bytes: `auto` (default: text if they are
    /// valid UTF-8, hex otherwise), `text` (invalid UTF-8 replaced by
    /// U+FFFD), `hex` (normalized) or `base64`.
    #[serde(default)]
    output_format: BytesFormat,
}

/// How a UUID is written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum UuidFormat {
    /// `67e55044-10b1-426f-9247-bb680e5fe0c8`
    #[default]
    Hyphenated,
    /// `67e5504410b1426f9247bb680e5fe0c8`
    Simple,
    /// `urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8`
    Urn,
    /// `{67e55044-10b1-426f-9247-bb680e5fe0c8}`
    Braced,
}

/// Arguments of `uuid`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UuidArgs {
    /// How many UUIDs to generate, 1 to 100. Default: 1.
    #[serde(default = "defaults::u32::<1>")]
    #[schemars(range(min = 1, max = 100))]
    count: u32,
    /// The notation: `hyphenated` (default), `simple` (32 hex digits),
    /// `urn` or `braced`.
    #[serde(default)]
    format: UuidFormat,
    /// Use uppercase hex digits. Default: false.
    #[serde(default)]
    uppercase: bool,
}

/// Which characters `url_encode` leaves alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum UrlMode {
    /// RFC 3986 component: everything but `A-Z a-z 0-9 - . _ ~` is
    /// percent-encoded (a space becomes `%20`).
    #[default]
    Component,
    /// HTML form (`application/x-www-form-urlencoded`): everything but
    /// `A-Z a-z 0-9 * - . _` is percent-encoded and a space becomes `+`.
    Form,
}

/// Arguments of `url_encode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UrlEncodeArgs {
    /// The text to encode, e.g. a query parameter value or a path segment.
    text: String,
    /// `component` (default: RFC 3986, space as `%20`) or `form`
    /// (`application/x-www-form-urlencoded`, space as `+`).
    #[serde(default)]
    mode: UrlMode,
}

/// Arguments of `url_decode`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UrlDecodeArgs {
    /// The percent-encoded text, e.g. `caf%C3%A9%20au%20lait`. A `%` not
    /// followed by two hex digits is kept as is.
    text: String,
    /// Decode `+` as a space, as in HTML form data and query strings.
    /// Default: false.
    #[serde(default)]
    plus_as_space: bool,
    /// How to return the decoded bytes: `auto` (default: text if they are
    /// valid UTF-8, hex otherwise), `text` (invalid UTF-8 replaced by
    /// U+FFFD), `hex` or `base64`.
    #[serde(default)]
    output_format: BytesFormat,
}

// ---------------------------------------------------------------------------
// Pure logic
// ---------------------------------------------------------------------------

/// The digest of `data` with `algorithm`.
fn digest(algorithm: Algorithm, data: &[u8]) -> Vec<u8> {
    match algorithm {
        Algorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
        Algorithm::Sha512 => sha2::Sha512::digest(data).to_vec(),
        Algorithm::Sha384 => sha2::Sha384::digest(data).to_vec(),
        Algorithm::Sha224 => sha2::Sha224::digest(data).to_vec(),
        Algorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
        Algorithm::Md5 => md5::Md5::digest(data).to_vec(),
    }
}

/// A base64 engine for `alphabet` that decodes with or without padding and
/// tolerates nonzero trailing bits.
fn engine(alphabet: &Alphabet, padding: bool) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_encode_padding(padding)
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            .with_decode_allow_trailing_bits(true),
    )
}

/// Standard base64 with padding.
fn base64_standard(data: &[u8]) -> String {
    engine(&alphabet::STANDARD, true).encode(data)
}

/// Decodes base64, ignoring whitespace. `field` names the argument in error
/// messages.
fn decode_base64(data: &str, alphabet: DecodeAlphabet, field: &str) -> Result<Vec<u8>, ToolError> {
    let compact: String = data.chars().filter(|c| !c.is_whitespace()).collect();
    let url_safe = match alphabet {
        DecodeAlphabet::Auto => compact.contains(['-', '_']),
        DecodeAlphabet::Standard => false,
        DecodeAlphabet::UrlSafe => true,
    };
    let (engine, name, hint) = if url_safe {
        (
            engine(&alphabet::URL_SAFE, false),
            "URL-safe",
            "the URL-safe alphabet uses `-` and `_` where the standard one uses `+` and `/`",
        )
    } else {
        (
            engine(&alphabet::STANDARD, false),
            "standard",
            "the standard alphabet uses `+` and `/` where the URL-safe one uses `-` and `_`",
        )
    };
    engine.decode(compact.as_bytes()).map_err(|error| {
        let why = match error {
            base64::DecodeError::InvalidByte(offset, byte) => {
                let shown = char::from(byte);
                if matches!(byte, b'+' | b'/' | b'-' | b'_') {
                    format!(
                        "invalid character `{shown}` at position {offset} for the {name} \
                         alphabet ({hint})"
                    )
                } else if byte == b'=' {
                    format!("misplaced padding `=` at position {offset}")
                } else {
                    format!("invalid character {shown:?} at position {offset}")
                }
            }
            base64::DecodeError::InvalidLength(len) => format!(
                "{len} base64 characters cannot encode whole bytes (a length of 4n+1 is \
                 impossible); the data is probably truncated"
            ),
            base64::DecodeError::InvalidLastSymbol(offset, byte) => format!(
                "invalid last character {:?} at position {offset}",
                char::from(byte)
            ),
            base64::DecodeError::InvalidPadding => "invalid padding".to_owned(),
        };
        ToolError::invalid_arguments(format!(
            "`{field}` is not valid base64: {why} (positions count non-whitespace characters \
             from 0)"
        ))
    })
}

/// Decodes hex, ignoring whitespace, `:` separators and `0x` prefixes.
fn decode_hex(data: &str, field: &str) -> Result<Vec<u8>, ToolError> {
    let mut digits = String::with_capacity(data.len());
    for token in data.split(|c: char| c.is_whitespace() || c == ':') {
        let token = token
            .strip_prefix("0x")
            .or_else(|| token.strip_prefix("0X"))
            .unwrap_or(token);
        digits.push_str(token);
    }
    if let Some((index, c)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        return Err(ToolError::invalid_arguments(format!(
            "`{field}` is not valid hex: {c:?} at position {index} (of the digits, ignoring \
             separators) is not a hex digit 0-9 a-f A-F"
        )));
    }
    if digits.len() % 2 == 1 {
        return Err(ToolError::invalid_arguments(format!(
            "`{field}` is not valid hex: it has an odd number of digits ({}); every byte takes \
             two",
            digits.len()
        )));
    }
    hex::decode(&digits)
        .map_err(|e| ToolError::invalid_arguments(format!("`{field}` is not valid hex: {e}")))
}

/// Reads the input bytes of `hash` and `base64_encode`.
fn input_bytes(text: &str, format: InputFormat, field: &str) -> Result<Vec<u8>, ToolError> {
    match format {
        InputFormat::Text => Ok(text.as_bytes().to_vec()),
        InputFormat::Hex => decode_hex(text, field),
        InputFormat::Base64 => decode_base64(text, DecodeAlphabet::Auto, field),
    }
}

/// Shows decoded bytes as the caller asked.
fn show_bytes(bytes: Vec<u8>, format: BytesFormat) -> String {
    match format {
        BytesFormat::Auto => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(error) => {
                let bytes = error.into_bytes();
                format!(
                    "The decoded data ({} bytes) is not valid UTF-8 text, so here it is as \
                     hex:\n{}",
                    bytes.len(),
                    hex::encode(&bytes)
                )
            }
        },
        BytesFormat::Text => String::from_utf8_lossy(&bytes).into_owned(),
        BytesFormat::Hex => hex::encode(&bytes),
        BytesFormat::Base64 => base64_standard(&bytes),
    }
}

/// RFC 3986 unreserved characters are left alone.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The WHATWG `application/x-www-form-urlencoded` byte set, except that a
/// space is left for the caller to turn into `+`.
const FORM: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'*')
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b' ');

fn url_encode(text: &str, mode: UrlMode) -> String {
    match mode {
        UrlMode::Component => percent_encoding::utf8_percent_encode(text, COMPONENT).to_string(),
        UrlMode::Form => percent_encoding::utf8_percent_encode(text, FORM)
            .to_string()
            .replace(' ', "+"),
    }
}

fn url_decode(text: &str, plus_as_space: bool) -> Vec<u8> {
    if plus_as_space {
        percent_encoding::percent_decode_str(&text.replace('+', " ")).collect()
    } else {
        percent_encoding::percent_decode_str(text).collect()
    }
}

/// `count` random UUIDs, one a line.
fn uuids(count: u32, format: UuidFormat, uppercase: bool) -> Result<String, ToolError> {
    if !(1..=100).contains(&count) {
        return Err(ToolError::invalid_arguments(format!(
            "`count` must be between 1 and 100, not {count}"
        )));
    }
    let mut out = String::with_capacity(count as usize * 46);
    for i in 0..count {
        let id = uuid::Uuid::new_v4();
        let mut buf = uuid::Uuid::encode_buffer();
        let text = match (format, uppercase) {
            (UuidFormat::Hyphenated, false) => id.hyphenated().encode_lower(&mut buf),
            (UuidFormat::Hyphenated, true) => id.hyphenated().encode_upper(&mut buf),
            (UuidFormat::Simple, false) => id.simple().encode_lower(&mut buf),
            (UuidFormat::Simple, true) => id.simple().encode_upper(&mut buf),
            (UuidFormat::Urn, false) => id.urn().encode_lower(&mut buf),
            (UuidFormat::Urn, true) => id.urn().encode_upper(&mut buf),
            (UuidFormat::Braced, false) => id.braced().encode_lower(&mut buf),
            (UuidFormat::Braced, true) => id.braced().encode_upper(&mut buf),
        };
        if i > 0 {
            out.push('\n');
        }
        out.push_str(text);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// The plugin
// ---------------------------------------------------------------------------

struct Encoding;

impl Plugin for Encoding {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new(
                    "hash",
                    "Compute a cryptographic digest (SHA-256 by default; also SHA-512, SHA-384, \
                     SHA-224, SHA-1, MD5) of a text's UTF-8 bytes, or of bytes given as hex or \
                     base64. Returns only the digest, as lowercase hex by default or base64. \
                     Use it for checksums, content hashes and comparing data; it is not a \
                     password hash.",
                )
                .title("Hash")
                .pure(),
                |args: HashArgs| -> Result<String, ToolError> {
                    let data = input_bytes(&args.text, args.input_format, "text")?;
                    let digest = digest(args.algorithm, &data);
                    Ok(match args.output_format {
                        DigestEncoding::Hex => hex::encode(digest),
                        DigestEncoding::Base64 => base64_standard(&digest),
                    })
                },
            )
            .tool(
                ToolDef::new(
                    "base64_encode",
                    "Encode a text's UTF-8 bytes (or bytes given as hex) as base64, with the \
                     standard or the URL-safe alphabet, padded with `=` or not. Returns only \
                     the encoded string.",
                )
                .title("Base64 encode")
                .pure(),
                |args: Base64EncodeArgs| -> Result<String, ToolError> {
                    let data = input_bytes(&args.text, args.input_format, "text")?;
                    let alphabet = if args.url_safe {
                        &alphabet::URL_SAFE
                    } else {
                        &alphabet::STANDARD
                    };
                    Ok(engine(alphabet, args.padding).encode(data))
                },
            )
            .tool(
                ToolDef::new(
                    "base64_decode",
                    "Decode base64 (standard or URL-safe alphabet, detected automatically; \
                     padding optional; whitespace ignored). Returns the decoded text, or, when \
                     the bytes are not UTF-8 text, their hex with a note saying so. Use \
                     `output_format` to force text, hex or base64.",
                )
                .title("Base64 decode")
                .pure(),
                |args: Base64DecodeArgs| -> Result<String, ToolError> {
                    let bytes = decode_base64(&args.data, args.alphabet, "data")?;
                    Ok(show_bytes(bytes, args.output_format))
                },
            )
            .tool(
                ToolDef::new(
                    "hex_encode",
                    "Encode a text's UTF-8 bytes as hexadecimal, two digits a byte, e.g. \
                     `Hi` -> `4869`. Returns only the hex string.",
                )
                .title("Hex encode")
                .pure(),
                |args: HexEncodeArgs| -> Result<String, ToolError> {
                    Ok(if args.uppercase {
                        hex::encode_upper(args.text)
                    } else {
                        hex::encode(args.text)
                    })
                },
            )
            .tool(
                ToolDef::new(
                    "hex_decode",
                    "Decode hexadecimal (e.g. `48656c6c6f`, `48 65 6c`, `0x48:65`) to bytes. \
                     Returns the text they spell, or, when they are not UTF-8 text, their hex \
                     with a note saying so. Use `output_format: base64` to convert hex to \
                     base64.",
                )
                .title("Hex decode")
                .pure(),
                |args: HexDecodeArgs| -> Result<String, ToolError> {
                    let bytes = decode_hex(&args.hex, "hex")?;
                    Ok(show_bytes(bytes, args.output_format))
                },
            )
            .tool(
                ToolDef::new(
                    "uuid",
                    "Generate 1 to 100 random UUIDs (version 4, RFC 9562) from a \
                     cryptographically secure random source. Returns one UUID a line, \
                     lowercase and hyphenated unless asked otherwise.",
                )
                .title("Generate UUIDs")
                .read_only()
                .closed_world(),
                |args: UuidArgs| -> Result<String, ToolError> {
                    uuids(args.count, args.format, args.uppercase)
                },
            )
            .tool(
                ToolDef::new(
                    "url_encode",
                    "Percent-encode a text for use in a URL: `component` mode (default) \
                     encodes everything except `A-Z a-z 0-9 - . _ ~` (for a path segment or \
                     a query value, like JavaScript's encodeURIComponent); `form` mode \
                     encodes like an HTML form, with spaces as `+`. Returns only the encoded \
                     string.",
                )
                .title("URL encode")
                .pure(),
                |args: UrlEncodeArgs| -> Result<String, ToolError> {
                    Ok(url_encode(&args.text, args.mode))
                },
            )
            .tool(
                ToolDef::new(
                    "url_decode",
                    "Decode a percent-encoded text (`%20`, `%C3%A9`, ...); with \
                     `plus_as_space`, `+` becomes a space as in form data. Returns the decoded \
                     text, or the bytes as hex with a note if they are not UTF-8.",
                )
                .title("URL decode")
                .pure(),
                |args: UrlDecodeArgs| -> Result<String, ToolError> {
                    Ok(show_bytes(
                        url_decode(&args.text, args.plus_as_space),
                        args.output_format,
                    ))
                },
            )
    }
}

export_plugin!(Encoding);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn call(name: &str, args: &str) -> Result<String, ToolError> {
        let out = Encoding::router().call(name, args)?;
        Ok(out.content()[0].as_text().expect("text").to_owned())
    }

    #[test]
    fn digests_match_known_vectors() {
        let abc = |algorithm| hex::encode(digest(algorithm, b"abc"));
        assert_eq!(
            abc(Algorithm::Sha256),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(abc(Algorithm::Sha512).starts_with("ddaf35a193617aba"));
        assert!(abc(Algorithm::Sha384).starts_with("cb00753f45a35e8b"));
        assert!(abc(Algorithm::Sha224).starts_with("23097d223405d822"));
        assert_eq!(
            abc(Algorithm::Sha1),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(abc(Algorithm::Md5), "900150983cd24fb0d6963f7d28e17f72");
    }

    #[test]
    fn hash_tool_reads_input_formats() {
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        assert_eq!(call("hash", r#"{"text":""}"#).unwrap(), empty);
        let from_hex = call("hash", r#"{"text":"61 62 63","input_format":"hex"}"#).unwrap();
        let from_b64 = call("hash", r#"{"text":"YWJj","input_format":"base64"}"#).unwrap();
        assert_eq!(from_hex, from_b64);
        assert_eq!(
            call(
                "hash",
                r#"{"text":"abc","algorithm":"md5","output_format":"base64"}"#
            )
            .unwrap(),
            "kAFQmDzST7DWlj99KOF/cg=="
        );
        assert!(matches!(
            call("hash", r#"{"text":"abc","algorithm":"sha3"}"#),
            Err(ToolError::InvalidArguments(_))
        ));
    }

    #[test]
    fn base64_round_trips_both_alphabets() {
        let text = r#"{"text":"subjects?_d=ÿ>"}"#;
        let standard = call("base64_encode", text).unwrap();
        assert_eq!(standard, "c3ViamVjdHM/X2Q9w78+");
        let url = call(
            "base64_encode",
            r#"{"text":"subjects?_d=ÿ>","url_safe":true,"padding":false}"#,
        )
        .unwrap();
        assert_eq!(url, "c3ViamVjdHM_X2Q9w78-");
        for data in [standard, url] {
            let args = serde_json::json!({ "data": data }).to_string();
            assert_eq!(call("base64_decode", &args).unwrap(), "subjects?_d=ÿ>");
        }
        assert_eq!(
            call("base64_decode", r#"{"data":"SGVs\nbG8"}"#).unwrap(),
            "Hello"
        );
        assert_eq!(
            call("base64_encode", r#"{"text":"00ff","input_format":"hex"}"#).unwrap(),
            "AP8="
        );
    }

    #[test]
    fn base64_decode_errors_are_invalid_arguments() {
        let err = call("base64_decode", r#"{"data":"ab$d"}"#).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.contains("'$' at position 2")),
            "{err:?}"
        );
        let err = call("base64_decode", r#"{"data":"a-c+","alphabet":"standard"}"#).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.contains("URL-safe")),
            "{err:?}"
        );
        let err = call("base64_decode", r#"{"data":"abcde"}"#).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.contains("truncated")),
            "{err:?}"
        );
    }

    #[test]
    fn binary_bytes_come_back_as_hex_with_a_note() {
        let out = call("base64_decode", r#"{"data":"AP8="}"#).unwrap();
        assert!(out.contains("not valid UTF-8"), "{out}");
        assert!(out.ends_with("\n00ff"), "{out}");
        assert_eq!(
            call("base64_decode", r#"{"data":"AP8=","output_format":"hex"}"#).unwrap(),
            "00ff"
        );
        assert_eq!(
            call("hex_decode", r#"{"hex":"00ff","output_format":"text"}"#).unwrap(),
            "\0\u{fffd}"
        );
    }

    #[test]
    fn hex_round_trips_and_tolerates_separators() {
        assert_eq!(call("hex_encode", r#"{"text":"Hi!"}"#).unwrap(), "486921");
        assert_eq!(
            call("hex_encode", r#"{"text":"é","uppercase":true}"#).unwrap(),
            "C3A9"
        );
        assert_eq!(
            call("hex_decode", r#"{"hex":"0x48 0x69:21"}"#).unwrap(),
            "Hi!"
        );
        assert_eq!(
            call("hex_decode", r#"{"hex":"4869","output_format":"base64"}"#).unwrap(),
            "SGk="
        );
        let err = call("hex_decode", r#"{"hex":"486"}"#).unwrap_err();
        assert!(matches!(&err, ToolError::InvalidArguments(m) if m.contains("odd")));
        let err = call("hex_decode", r#"{"hex":"48zz"}"#).unwrap_err();
        assert!(matches!(&err, ToolError::InvalidArguments(m) if m.contains("'z'")));
    }

    #[test]
    fn uuids_are_v4_and_distinct() {
        let out = call("uuid", r#"{"count":5}"#).unwrap();
        let ids: Vec<&str> = out.lines().collect();
        assert_eq!(ids.len(), 5);
        for id in &ids {
            let parsed = uuid::Uuid::parse_str(id).expect("a UUID");
            assert_eq!(parsed.get_version_num(), 4);
            assert_eq!(id.len(), 36);
        }
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), 5);
        let braced = call("uuid", r#"{"format":"braced","uppercase":true}"#).unwrap();
        assert!(braced.starts_with('{') && braced.ends_with('}'));
        assert_eq!(braced, braced.to_uppercase());
        assert!(matches!(
            call("uuid", r#"{"count":0}"#),
            Err(ToolError::InvalidArguments(_))
        ));
        assert!(matches!(
            call("uuid", r#"{"count":101}"#),
            Err(ToolError::InvalidArguments(_))
        ));
    }

    #[test]
    fn url_encoding_modes() {
        assert_eq!(
            url_encode("a b&c=d/é~*", UrlMode::Component),
            "a%20b%26c%3Dd%2F%C3%A9~%2A"
        );
        assert_eq!(
            url_encode("a b&c=d/é~*", UrlMode::Form),
            "a+b%26c%3Dd%2F%C3%A9%7E*"
        );
        assert_eq!(url_decode("a+b%20c%C3%A9%zz", false), b"a+b c\xc3\xa9%zz");
        assert_eq!(url_decode("a+b", true), b"a b");
        assert_eq!(
            call(
                "url_decode",
                r#"{"text":"caf%C3%A9+au+lait","plus_as_space":true}"#
            )
            .unwrap(),
            "café au lait"
        );
    }

    #[test]
    fn every_tool_has_a_described_object_schema() {
        assert_eq!(
            Encoding::router().undescribed_arguments(),
            Vec::<String>::new()
        );
        for def in Encoding::router().list() {
            let schema: serde_json::Value =
                serde_json::from_str(def.input_schema().expect("schema")).expect("JSON");
            assert_eq!(schema["type"], "object", "{}", def.name());
            assert_eq!(def.hints().open_world, Some(false));
            assert_eq!(def.hints().read_only, Some(true));
            assert_eq!(
                def.hints().idempotent,
                (def.name() != "uuid").then_some(true)
            );
        }
    }
}
