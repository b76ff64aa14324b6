//! Example plugin: regular expressions, diffs and statistics over texts.
//!
//! Tools (all read-only, idempotent and closed-world):
//!
//! - `regex_find`: every match of a regular expression, with byte offsets,
//!   line and column, and capture groups (structured content).
//! - `regex_replace`: replaces the matches of a regular expression (all or
//!   the first N), with `$1`/`${name}` references; returns the new text and
//!   the number of replacements (structured content).
//! - `diff`: a unified diff (as `diff -u` or `git diff` print it) between
//!   two texts, with labels and a chosen number of context lines.
//! - `text_stats`: counts characters, bytes, words, lines and distinct words
//!   and lists the most frequent words (structured content).
//!
//! Regular expressions use the syntax of Rust's `regex` crate (like RE2 or
//! Perl without look-around and backreferences), which always runs in time
//! linear in the text.

use std::collections::HashMap;
use std::time::Duration;

use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::schemars;
use regex::{NoExpand, Regex, RegexBuilder};
use similar::{ChangeTag, TextDiff};

// ---------------------------------------------------------------------------
// Arguments and results
// ---------------------------------------------------------------------------

/// Flags that change how a pattern matches.
#[derive(Debug, Default, Clone, Copy)]
struct Flags {
    case_insensitive: bool,
    multi_line: bool,
    dot_matches_newline: bool,
}

/// Declares an argument struct whose fields are `$field`s followed by the
/// regex flags, and its `flags()` accessor. (The flags are not a
/// `#[serde(flatten)]`ed struct because flattening cannot be combined with
/// `deny_unknown_fields`, which makes the schema reject misspelled
/// arguments.)
macro_rules! with_flags {
    (
        $(#[$meta:meta])*
        struct $name:ident { $($(#[$fmeta:meta])* $field:ident: $ty:ty,)* }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        struct $name {
            $($(#[$fmeta])* $field: $ty,)*
            /// Match letters regardless of case (the `i` flag). Default: false.
            #[serde(default)]
            case_insensitive: bool,
            /// `^` and `$` match at the start and end of every line, not only
            /// of the whole text (the `m` flag). Default: false.
            #[serde(default)]
            multi_line: bool,
            /// `.` also matches a newline (the `s` flag). Default: false.
            #[serde(default)]
            dot_matches_newline: bool,
        }

        impl $name {
            fn flags(&self) -> Flags {
                Flags {
                    case_insensitive: self.case_insensitive,
                    multi_line: self.multi_line,
                    dot_matches_newline: self.dot_matches_newline,
                }
            }
        }
    };
}

with_flags! {
/// Arguments of `regex_find`.
struct FindArgs {
    /// The text to search.
    text: String,
    /// The regular expression (Rust `regex` syntax: Perl-like classes `\d \w
    /// \s \b`, Unicode classes `\p{L}`, named groups `(?P<name>...)` or
    /// `(?<name>...)`, inline flags `(?i)`; no look-around or
    /// backreferences).
    pattern: String,
    /// The most matches to list, 1 to 1000. Default: 100. `total` still
    /// counts them all.
    #[serde(default = "defaults::u32::<100>")]
    #[schemars(range(min = 1, max = 1000))]
    max_matches: u32,
}
}

/// A matched span of the text.
#[derive(Debug, PartialEq, Eq, Serialize, JsonSchema)]
struct Span {
    /// The group's name, for a named group.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    /// The UTF-8 byte offset where the span starts.
    start: usize,
    /// The UTF-8 byte offset just past the span's end.
    end: usize,
    /// The matched text.
    text: String,
}

/// One match of the pattern.
#[derive(Debug, PartialEq, Eq, Serialize, JsonSchema)]
struct Found {
    /// The UTF-8 byte offset where the match starts.
    start: usize,
    /// The UTF-8 byte offset just past the match's end.
    end: usize,
    /// The line (from 1) where the match starts.
    line: usize,
    /// The column (from 1, in characters) where the match starts.
    column: usize,
    /// The matched text.
    text: String,
    /// Capture groups 1, 2, ... in order; `null` for a group that did not
    /// take part in the match. Empty when the pattern has no groups.
    groups: Vec<Option<Span>>,
}

/// The result of `regex_find`.
#[derive(Debug, Serialize, JsonSchema)]
struct FindResult {
    /// How many matches the text has in total.
    total: usize,
    /// Whether `matches` lists fewer than `total` because of `max_matches`.
    truncated: bool,
    /// The first matches, in order.
    matches: Vec<Found>,
}

with_flags! {
/// Arguments of `regex_replace`.
struct ReplaceArgs {
    /// The text to change.
    text: String,
    /// The regular expression to find (Rust `regex` syntax, as in
    /// `regex_find`).
    pattern: String,
    /// The replacement. `$0` is the whole match, `$1` or `${1}` a numbered
    /// group, `$name` or `${name}` a named group, `$$` a literal `$`. Write
    /// `${1}x` rather than `$1x`, which means the group named `1x`.
    replacement: String,
    /// Insert `replacement` as is, without expanding `$` references.
    /// Default: false.
    #[serde(default)]
    literal: bool,
    /// Replace only the first `limit` matches; 0 (the default) replaces all.
    #[serde(default)]
    limit: u32,
}
}

/// The result of `regex_replace`.
#[derive(Debug, Serialize, JsonSchema)]
struct ReplaceResult {
    /// How many matches were replaced.
    replacements: usize,
    /// The text after replacement.
    text: String,
}

/// Arguments of `diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DiffArgs {
    /// The original text.
    old: String,
    /// The changed text.
    new: String,
    /// The original's name in the `---` header line. Default: `a`.
    #[serde(default = "label_a")]
    old_label: String,
    /// The changed text's name in the `+++` header line. Default: `b`.
    #[serde(default = "label_b")]
    new_label: String,
    /// Unchanged lines to show around each change, 0 to 1000. Default: 3.
    #[serde(default = "defaults::u32::<3>")]
    #[schemars(range(max = 1000))]
    context: u32,
}

/// Arguments of `text_stats`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StatsArgs {
    /// The text to measure.
    text: String,
    /// How many of the most frequent words to list, 0 to 100. Default: 10.
    #[serde(default = "defaults::u32::<10>")]
    #[schemars(range(max = 100))]
    top: u32,
    /// Count words that differ only in case separately. Default: false
    /// (words are lowercased).
    #[serde(default)]
    case_sensitive: bool,
    /// Leave words shorter than this many characters out of `top_words`, 1 to
    /// 100; e.g. 4 skips most articles and prepositions. Default: 1.
    #[serde(default = "defaults::u32::<1>")]
    #[schemars(range(min = 1, max = 100))]
    min_word_length: u32,
}

/// A word and how often it occurs.
#[derive(Debug, PartialEq, Eq, Serialize, JsonSchema)]
struct WordCount {
    /// The word (lowercased unless `case_sensitive`).
    word: String,
    /// How many times it occurs.
    count: usize,
}

/// The result of `text_stats`.
#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Stats {
    /// Unicode scalar values (what most languages call characters).
    characters: usize,
    /// UTF-8 bytes.
    bytes: usize,
    /// Whitespace-separated words, as `wc -w` counts them.
    words: usize,
    /// Lines; a final line without a line break counts, an empty text has 0.
    lines: usize,
    /// Lines that contain something other than whitespace.
    non_blank_lines: usize,
    /// Distinct words (runs of letters, digits, `_` and inner `'` or `-`
    /// that contain a letter), after lowercasing unless `case_sensitive`.
    distinct_words: usize,
    /// The length of the longest line, in characters.
    longest_line: usize,
    /// The most frequent words, most frequent first (ties in alphabetical
    /// order).
    top_words: Vec<WordCount>,
}

fn label_a() -> String {
    "a".to_owned()
}

fn label_b() -> String {
    "b".to_owned()
}

// ---------------------------------------------------------------------------
// Pure logic
// ---------------------------------------------------------------------------

/// Compiles `pattern` with `flags`; a bad pattern is the caller's to fix.
fn compile(pattern: &str, flags: Flags) -> Result<Regex, ToolError> {
    RegexBuilder::new(pattern)
        .case_insensitive(flags.case_insensitive)
        .multi_line(flags.multi_line)
        .dot_matches_new_line(flags.dot_matches_newline)
        .size_limit(16 << 20)
        .build()
        .map_err(|e| ToolError::invalid_arguments(format!("`pattern` is not a valid regex: {e}")))
}

fn find(args: FindArgs) -> Result<FindResult, ToolError> {
    if !(1..=1000).contains(&args.max_matches) {
        return Err(ToolError::invalid_arguments(format!(
            "`max_matches` must be between 1 and 1000, not {}",
            args.max_matches
        )));
    }
    let regex = compile(&args.pattern, args.flags())?;
    let names: Vec<Option<&str>> = regex.capture_names().skip(1).collect();
    let text = args.text.as_str();
    let max = args.max_matches as usize;

    let mut matches = Vec::new();
    let mut total = 0;
    // Line and column of `pos`, advanced incrementally as matches go on.
    let (mut pos, mut line, mut line_start) = (0, 1, 0);
    for captures in regex.captures_iter(text) {
        total += 1;
        if matches.len() == max {
            continue;
        }
        let Some(whole) = captures.get(0) else {
            continue;
        };
        let skipped = &text[pos..whole.start()];
        if let Some(last_newline) = skipped.rfind('\n') {
            line += skipped.matches('\n').count();
            line_start = pos + last_newline + 1;
        }
        pos = whole.start();
        let groups = names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                captures.get(i + 1).map(|m| Span {
                    name: name.map(str::to_owned),
                    start: m.start(),
                    end: m.end(),
                    text: m.as_str().to_owned(),
                })
            })
            .collect();
        matches.push(Found {
            start: whole.start(),
            end: whole.end(),
            line,
            column: text[line_start..whole.start()].chars().count() + 1,
            text: whole.as_str().to_owned(),
            groups,
        });
    }
    Ok(FindResult {
        total,
        truncated: total > matches.len(),
        matches,
    })
}

fn replace(args: ReplaceArgs) -> Result<ReplaceResult, ToolError> {
    let regex = compile(&args.pattern, args.flags())?;
    let limit = args.limit as usize;
    let found = regex.find_iter(&args.text).count();
    let replacements = if limit == 0 { found } else { found.min(limit) };
    let text = if args.literal {
        regex.replacen(&args.text, limit, NoExpand(&args.replacement))
    } else {
        regex.replacen(&args.text, limit, args.replacement.as_str())
    };
    Ok(ReplaceResult {
        replacements,
        text: text.into_owned(),
    })
}

fn diff(args: DiffArgs) -> Result<Output, ToolError> {
    if args.context > 1000 {
        return Err(ToolError::invalid_arguments(format!(
            "`context` must be between 0 and 1000, not {}",
            args.context
        )));
    }
    if args.old == args.new {
        return Ok(Output::text("The two texts are identical: no differences."));
    }
    let diff = TextDiff::configure()
        .timeout(Duration::from_secs(5))
        .diff_lines(&args.old, &args.new);
    let (mut added, mut removed) = (0, 0);
    for change in diff.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let hunks = diff.grouped_ops(args.context as usize).len();
    let unified = diff
        .unified_diff()
        .context_radius(args.context as usize)
        .header(&args.old_label, &args.new_label)
        .to_string();
    let summary = format!(
        "{removed} line{} removed, {added} line{} added, in {hunks} hunk{}.",
        plural(removed),
        plural(added),
        plural(hunks)
    );
    Ok(Output::text(unified).and(summary))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Whether `c` can be part of a word for `text_stats`.
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The words of `text`: runs of letters, digits and `_`, joined by inner
/// apostrophes or hyphens (`don't`, `state-of-the-art`), with at least one
/// letter (so `42` is not a word).
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(is_word_char(c) || matches!(c, '\'' | '’' | '-')))
        .map(|token| token.trim_matches(|c: char| !is_word_char(c)))
        .filter(|token| token.chars().any(char::is_alphabetic))
}

fn stats(args: StatsArgs) -> Result<Stats, ToolError> {
    if args.top > 100 {
        return Err(ToolError::invalid_arguments(format!(
            "`top` must be between 0 and 100, not {}",
            args.top
        )));
    }
    if !(1..=100).contains(&args.min_word_length) {
        return Err(ToolError::invalid_arguments(format!(
            "`min_word_length` must be between 1 and 100, not {}",
            args.min_word_length
        )));
    }
    let text = args.text.as_str();
    let mut frequency: HashMap<String, usize> = HashMap::new();
    for token in tokens(text) {
        let word = if args.case_sensitive {
            token.to_owned()
        } else {
            token.to_lowercase()
        };
        *frequency.entry(word).or_default() += 1;
    }
    let distinct_words = frequency.len();
    let min_len = args.min_word_length as usize;
    let mut top_words: Vec<WordCount> = frequency
        .into_iter()
        .filter(|(word, _)| word.chars().count() >= min_len)
        .map(|(word, count)| WordCount { word, count })
        .collect();
    top_words.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.word.cmp(&b.word)));
    top_words.truncate(args.top as usize);

    Ok(Stats {
        characters: text.chars().count(),
        bytes: text.len(),
        words: text.split_whitespace().count(),
        lines: text.lines().count(),
        non_blank_lines: text.lines().filter(|l| !l.trim().is_empty()).count(),
        distinct_words,
        longest_line: text.lines().map(|l| l.chars().count()).max().unwrap_or(0),
        top_words,
    })
}

// ---------------------------------------------------------------------------
// The plugin
// ---------------------------------------------------------------------------

/// The icon of `text_stats`: a small bar chart, drawn in the current colour
/// so it suits light and dark themes.
const STATS_ICON: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" fill="currentColor"><rect x="1" y="9" width="3" height="6"/><rect x="6" y="5" width="3" height="10"/><rect x="11" y="1" width="3" height="14"/></svg>"#;

struct Text;

impl Plugin for Text {
    fn router() -> Router {
        Router::new()
            .json_tool(
                ToolDef::new(
                    "regex_find",
                    "Find every match of a regular expression in a text. Returns the total \
                     number of matches and the first `max_matches` (default 100), each with \
                     its text, UTF-8 byte offsets, line and column, and capture groups. Syntax \
                     is Rust's `regex` crate (Perl-like, Unicode-aware, no look-around or \
                     backreferences); flags for case-insensitive, multi-line and dot-all.",
                )
                .title("Regex find")
                .pure(),
                find,
            )
            .json_tool(
                ToolDef::new(
                    "regex_replace",
                    "Replace the matches of a regular expression in a text: all of them, or \
                     only the first `limit`. The replacement may reference groups as `$1`, \
                     `${1}`, `${name}` (`$$` for a literal `$`), or be taken literally. Returns \
                     the new text and how many replacements were made.",
                )
                .title("Regex replace")
                .pure(),
                replace,
            )
            .tool(
                ToolDef::new(
                    "diff",
                    "Compare two texts line by line and return a unified diff (the format of \
                     `diff -u` and `git diff`, usable as a patch) with `---`/`+++` labels and \
                     `context` unchanged lines around each change (default 3), followed by a \
                     summary line counting removed and added lines.",
                )
                .title("Unified diff")
                .pure(),
                diff,
            )
            .json_tool(
                ToolDef::new(
                    "text_stats",
                    "Measure a text: characters, UTF-8 bytes, words, lines, non-blank lines, \
                     distinct words, longest line, and the most frequent words (case-folded \
                     by default; `min_word_length` filters out short words like `a` or `the`).",
                )
                .title("Text statistics")
                .pure()
                .icon(Icon::svg(STATS_ICON)),
                stats,
            )
    }
}

export_plugin!(Text);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn structured(name: &str, args: Value) -> Result<Value, ToolError> {
        let out = Text::router().call(name, &args.to_string())?;
        Ok(serde_json::from_str(out.structured_content().expect("structured")).expect("JSON"))
    }

    fn texts(name: &str, args: Value) -> Result<Vec<String>, ToolError> {
        let out = Text::router().call(name, &args.to_string())?;
        Ok(out
            .content()
            .iter()
            .map(|c| c.as_text().expect("text").to_owned())
            .collect())
    }

    #[test]
    fn find_reports_offsets_lines_and_groups() {
        let result = structured(
            "regex_find",
            json!({
                "text": "id: 1\nnames: é=42, x=7\n",
                "pattern": r"(?<key>\w)=(\d+)(!)?",
            }),
        )
        .unwrap();
        assert_eq!(result["total"], 2);
        assert_eq!(result["truncated"], false);
        let first = &result["matches"][0];
        assert_eq!(first["text"], "é=42");
        assert_eq!(first["start"], 13);
        assert_eq!(first["end"], 18);
        assert_eq!(first["line"], 2);
        assert_eq!(first["column"], 8);
        assert_eq!(
            first["groups"],
            json!([
                {"name": "key", "start": 13, "end": 15, "text": "é"},
                {"start": 16, "end": 18, "text": "42"},
                null
            ])
        );
        assert_eq!(result["matches"][1]["column"], 14);
    }

    #[test]
    fn find_flags_and_cap() {
        let result = structured(
            "regex_find",
            json!({"text": "A a\nb A", "pattern": "^a", "case_insensitive": true,
                   "multi_line": true}),
        )
        .unwrap();
        assert_eq!(result["total"], 1);
        let result = structured(
            "regex_find",
            json!({"text": "aaaa", "pattern": "a", "max_matches": 3}),
        )
        .unwrap();
        assert_eq!(result["total"], 4);
        assert_eq!(result["truncated"], true);
        assert_eq!(result["matches"].as_array().map(Vec::len), Some(3));
        assert_eq!(result["matches"][2]["column"], 3);
    }

    #[test]
    fn bad_patterns_are_invalid_arguments() {
        let err = structured("regex_find", json!({"text": "x", "pattern": "(a"})).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments(m) if m.contains("unclosed group")),
            "{err:?}"
        );
        let err = structured(
            "regex_replace",
            json!({"text": "x", "pattern": "(?=a)", "replacement": ""}),
        )
        .unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
    }

    #[test]
    fn replace_expands_groups_and_counts() {
        let result = structured(
            "regex_replace",
            json!({"text": "2024-01-31 and 2025-12-01", "pattern": r"(\d+)-(\d+)-(\d+)",
                   "replacement": "$3/$2/${1}"}),
        )
        .unwrap();
        assert_eq!(
            result,
            json!({"replacements": 2, "text": "31/01/2024 and 01/12/2025"})
        );
        let result = structured(
            "regex_replace",
            json!({"text": "a.b.c", "pattern": r"\.", "replacement": "$0$", "literal": true,
                   "limit": 1}),
        )
        .unwrap();
        assert_eq!(result, json!({"replacements": 1, "text": "a$0$b.c"}));
        let result = structured(
            "regex_replace",
            json!({"text": "abc", "pattern": "z", "replacement": "y"}),
        )
        .unwrap();
        assert_eq!(result, json!({"replacements": 0, "text": "abc"}));
    }

    #[test]
    fn diff_is_unified() {
        let out = texts(
            "diff",
            json!({"old": "one\ntwo\nthree\nfour\n", "new": "one\n2\nthree\nfour\nfive\n",
                   "old_label": "v1.txt", "new_label": "v2.txt", "context": 1}),
        )
        .unwrap();
        assert_eq!(
            out[0],
            "--- v1.txt\n+++ v2.txt\n@@ -1,4 +1,5 @@\n one\n-two\n+2\n three\n four\n+five\n"
        );
        assert_eq!(out[1], "1 line removed, 2 lines added, in 1 hunk.");
        let same = texts("diff", json!({"old": "x", "new": "x"})).unwrap();
        assert!(same[0].contains("identical"));
        let no_newline = texts("diff", json!({"old": "a", "new": "b"})).unwrap();
        assert!(
            no_newline[0].starts_with("--- a\n+++ b\n"),
            "{}",
            no_newline[0]
        );
        assert!(no_newline[0].contains("No newline at end of file"));
    }

    #[test]
    fn stats_counts_and_ranks_words() {
        let text = "The cat and the hat.\n\nThe CAT's hat isn't state-of-the-art — 42 times!";
        let stats = stats(StatsArgs {
            text: text.to_owned(),
            top: 3,
            case_sensitive: false,
            min_word_length: 1,
        })
        .unwrap();
        assert_eq!(stats.characters, text.chars().count());
        assert_eq!(stats.bytes, text.len());
        assert_eq!(stats.words, 13);
        assert_eq!(stats.lines, 3);
        assert_eq!(stats.non_blank_lines, 2);
        assert_eq!(stats.longest_line, 48);
        assert_eq!(
            stats.top_words,
            vec![
                WordCount {
                    word: "the".into(),
                    count: 3
                },
                WordCount {
                    word: "hat".into(),
                    count: 2
                },
                WordCount {
                    word: "and".into(),
                    count: 1
                },
            ]
        );
        // the, cat, and, hat, cat's, isn't, state-of-the-art, times
        assert_eq!(stats.distinct_words, 8);

        let long = structured(
            "text_stats",
            json!({"text": text, "min_word_length": 4, "top": 1}),
        )
        .unwrap();
        assert_eq!(long["top_words"], json!([{"word": "cat's", "count": 1}]));
        let empty = structured("text_stats", json!({"text": ""})).unwrap();
        assert_eq!(empty["lines"], 0);
        assert_eq!(empty["top_words"], json!([]));
    }

    #[test]
    fn schemas_describe_every_argument() {
        assert_eq!(Text::router().undescribed_arguments(), Vec::<String>::new());
        for def in Text::router().list() {
            assert!(def.output_schema().is_some() || def.name() == "diff");
        }
    }
}
