//! A small text-layout kit for the `inspect` report: labelled columns,
//! word wrapping, and JSON wrapped only where it does not fit.

use std::fmt::Write as _;

use serde_json::Value;

/// Appends `label` padded to `width` after `indent` spaces, then `value`,
/// continuing a multi-line value in the value column.
pub(super) fn line(out: &mut String, indent: usize, width: usize, label: &str, value: &str) {
    let column = indent + width;
    let mut lines = value.lines();
    let first = lines.next().unwrap_or("");
    let head = format!("{:indent$}{label:<width$}", "");
    let _ = writeln!(out, "{}", format!("{head} {first}").trim_end());
    for rest in lines {
        let _ = writeln!(out, "{:column$} {rest}", "");
    }
}

pub(super) fn words(text: &str, width: usize) -> String {
    let mut out = String::new();
    for (n, paragraph) in text.lines().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        let mut len = 0;
        for word in paragraph.split(' ') {
            if len > 0 && len + 1 + word.len() > width {
                out.push('\n');
                len = 0;
            } else if len > 0 {
                out.push(' ');
                len += 1;
            }
            out.push_str(word);
            len += word.len();
        }
    }
    out
}

/// Joins `items` with `, `, breaking lines before `width` characters and
/// indenting every line after the first by `hang` spaces.
pub(super) fn wrap(items: &[&str], width: usize, hang: usize) -> String {
    let mut out = String::new();
    let mut len = 0;
    for (n, item) in items.iter().enumerate() {
        let piece = if n + 1 < items.len() {
            format!("{item},")
        } else {
            item.to_string()
        };
        if len > 0 && len + 1 + piece.len() > width {
            let _ = write!(out, "\n{:hang$}", "");
            len = 0;
        } else if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(&piece);
        len += piece.len();
    }
    out
}

/// Appends `value` as JSON that starts at column `column` of a block
/// indented by `indent`: on one line (`{"a": 1, "b": [2, 3]}`) when it fits
/// in `width`, otherwise one member per line, each wrapped the same way.
pub(super) fn json_text(
    value: &Value,
    indent: usize,
    column: usize,
    width: usize,
    out: &mut String,
) {
    let flat = json_flat(value);
    let members: Vec<(Option<&String>, &Value)> = match value {
        Value::Object(m) => m.iter().map(|(k, v)| (Some(k), v)).collect(),
        Value::Array(a) => a.iter().map(|v| (None, v)).collect(),
        _ => Vec::new(),
    };
    if column + flat.len() <= width || members.is_empty() {
        out.push_str(&flat);
        return;
    }
    let (open, close) = if value.is_object() {
        ('{', '}')
    } else {
        ('[', ']')
    };
    out.push(open);
    out.push('\n');
    let inner = indent + 2;
    let last = members.len() - 1;
    for (n, (key, member)) in members.into_iter().enumerate() {
        let prefix = key.map(|k| format!("{}: ", Value::from(k.as_str())));
        let prefix = prefix.unwrap_or_default();
        let _ = write!(out, "{:inner$}{prefix}", "");
        json_text(member, inner, inner + prefix.len(), width, out);
        if n < last {
            out.push(',');
        }
        out.push('\n');
    }
    let _ = write!(out, "{:indent$}{close}", "");
}

/// `value` as JSON on one line, with a space after each `:` and `,`.
pub(super) fn json_flat(value: &Value) -> String {
    match value {
        Value::Object(m) if !m.is_empty() => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), json_flat(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(a) if !a.is_empty() => format!(
            "[{}]",
            a.iter().map(json_flat).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_is_wrapped_only_where_it_does_not_fit() {
        let v = json!({"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}}});
        let mut out = String::new();
        json_text(&v, 0, 0, 200, &mut out);
        assert_eq!(
            out,
            r#"{"properties": {"a": {"type": "string"}}, "required": ["a", "b"], "type": "object"}"#
        );
        let mut out = String::new();
        json_text(&v, 0, 0, 50, &mut out);
        assert_eq!(
            out,
            "{\n  \"properties\": {\"a\": {\"type\": \"string\"}},\n  \"required\": [\"a\", \"b\"],\n  \"type\": \"object\"\n}"
        );
        let back: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(back, v);
    }
}
