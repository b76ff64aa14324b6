//! Example plugin: the statistics of a CSV's columns, with an interactive
//! chart of them (an MCP Apps view).
//!
//! - Tool `chart_csv` (`csv`, optional `column`): per-column statistics
//!   (values, missing, min, max, mean, or the most frequent values of a text
//!   column) as text for the model and as structured content, with the
//!   values of each numeric column for the first 200 rows. Clients that
//!   render MCP Apps views show the result in `ui://csvview/chart.html`: a
//!   bar chart of a numeric column, chosen with a picker, and a table of the
//!   statistics.
//! - View `ui://csvview/chart.html`: one self-contained HTML document
//!   (`chart.html`, inline script and style); it reaches no origin.
//! - Prompt `explore_csv` (`csv`, `question`): asks the model to answer a
//!   question about a CSV, starting from `chart_csv`; `question` completes
//!   to a few common questions.
//! - Resource `csvview://guide`: how `chart_csv` reads a CSV (Markdown).
//! - Template `csvview://samples/{name}`: sample CSVs to try the tool on
//!   (`cities`, `monthly-sales`); `name` completes.
//!
//! The CSV is RFC 4180: comma-separated, the first record is the header,
//! fields may be quoted (`""` is a quote inside quotes), blank lines are
//! skipped. A column is numeric when every non-empty value is a finite
//! decimal number.

use std::collections::HashMap;

use mcp_wasm_sdk::prelude::*;
use mcp_wasm_sdk::schemars;

/// The view's URI.
pub const VIEW_URI: &str = "ui://csvview/chart.html";
/// The view: an HTML document with its script and style inline.
pub const VIEW_HTML: &str = include_str!("chart.html");
/// The most rows whose values the result carries for the chart.
pub const MAX_CHARTED: usize = 200;
/// The most frequent values listed for a text column.
const TOP: usize = 5;

const GUIDE: &str = "# csvview: charting a CSV

`chart_csv` takes the text of a CSV file (`csv`) and, optionally, the name
of the numeric column to chart (`column`; by default the first numeric
one). It returns each column's statistics and, in clients that show MCP
Apps views, a bar chart with a column picker and a table.

How the CSV is read (RFC 4180):

- fields are separated by commas; the first record names the columns;
- a field may be quoted with `\"`; inside quotes, `\"\"` is one quote and
  commas and line breaks are part of the field;
- blank lines are skipped; a record with fewer fields than the header has
  the rest missing, one with more is an error;
- a column is a number column when every non-empty value is a finite
  decimal number (`12`, `-3.5`, `1e6`); otherwise it is a text column.

Statistics: for a number column the count of values, missing values, min,
max, mean and sum; for a text column the count, missing values, distinct
values and the 5 most frequent. The bars are labelled by the first text
column (or by row number) and the first 200 rows are charted.

Samples to try it on: `csvview://samples/cities`,
`csvview://samples/monthly-sales`.
";

const SAMPLES: &[(&str, &str)] = &[
    (
        "cities",
        "city,country,population,area_km2\n\
         Tokyo,Japan,13960000,2194\n\
         Delhi,India,16787941,1484\n\
         Shanghai,China,24870895,6341\n\
         São Paulo,Brazil,12325232,1521\n\
         Mexico City,Mexico,9209944,1485\n\
         Cairo,Egypt,9539673,3085\n\
         Mumbai,India,12442373,603\n\
         Paris,France,2102650,105\n",
    ),
    (
        "monthly-sales",
        "month,region,units,revenue,returns\n\
         2025-01,North,120,14400.50,3\n\
         2025-02,North,135,16200.00,1\n\
         2025-03,North,160,19150.25,\n\
         2025-04,South,98,11760.00,4\n\
         2025-05,South,143,17160.75,2\n\
         2025-06,South,171,20520.00,0\n",
    ),
];

const QUESTIONS: &[&str] = &[
    "Which rows have the largest values?",
    "Which columns have missing values?",
    "Are there outliers?",
    "How are the values distributed?",
    "How do the numeric columns relate to each other?",
    "Summarize this data.",
];

/// Arguments of `chart_csv`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ChartArgs {
    /// The CSV text: a header record, then one record per row.
    csv: String,
    /// The numeric column to chart. Default: the first numeric column.
    #[serde(default)]
    column: Option<String>,
}

/// What `chart_csv` returns as structured content.
#[derive(Debug, Serialize, JsonSchema)]
struct Chart {
    /// Number of data rows (records after the header).
    rows: usize,
    /// The numeric column the chart shows first, if there is one.
    column: Option<String>,
    /// The text column whose values label the bars; without one, bars are
    /// labelled `row 1`, `row 2`, ...
    label_column: Option<String>,
    /// The bar labels of the charted rows.
    labels: Vec<String>,
    /// Whether there are more rows than the charted ones.
    truncated: bool,
    /// Each column's statistics, in the header's order.
    columns: Vec<Column>,
}

/// Statistics of one column.
#[derive(Debug, Serialize, JsonSchema)]
struct Column {
    /// Its name in the header (made unique: a repeated name gets ` (2)`, ...).
    name: String,
    /// `number`, `text`, or `empty` (no value at all).
    kind: Kind,
    /// Non-empty values.
    count: usize,
    /// Empty values.
    missing: usize,
    /// Distinct non-empty values.
    distinct: usize,
    /// Smallest value (number columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<f64>,
    /// Largest value (number columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<f64>,
    /// Mean of the values (number columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    mean: Option<f64>,
    /// Sum of the values (number columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    sum: Option<f64>,
    /// The most frequent values, most frequent first (text columns).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    top: Vec<Top>,
    /// The values of the charted rows, `null` where missing (number columns).
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Vec<Option<f64>>>,
}

/// A column's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Kind {
    Number,
    Text,
    Empty,
}

/// A value and how many times it occurs.
#[derive(Debug, Serialize, JsonSchema)]
struct Top {
    value: String,
    count: usize,
}

/// Splits `text` into records of fields (RFC 4180), skipping blank lines.
fn parse_csv(text: &str) -> Result<Vec<Vec<String>>, ToolError> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    // Whether the current record has anything yet (a blank line has not).
    let mut started = false;
    let mut line = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() => {
                quoted = true;
                started = true;
            }
            '"' => {
                return Err(ToolError::invalid_arguments(format!(
                    "line {line}: a quote inside an unquoted field (quote the whole field and write \"\" for a quote)"
                )));
            }
            ',' => {
                record.push(std::mem::take(&mut field));
                started = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                line += 1;
                if started || !field.is_empty() {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                }
                started = false;
            }
            _ => {
                field.push(c);
                started = true;
            }
        }
    }
    if quoted {
        return Err(ToolError::invalid_arguments(
            "the CSV ends inside a quoted field",
        ));
    }
    if started || !field.is_empty() {
        record.push(field);
        records.push(record);
    }
    Ok(records)
}

/// `text` as a finite number, if it is one.
fn number(text: &str) -> Option<f64> {
    let t = text.trim();
    // `f64::from_str` also takes `inf`, `NaN` and `infinity`.
    if !t.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
        return None;
    }
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The header's names, with empty ones named by position and repeated ones
/// numbered.
fn column_names(header: &[String]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    header
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let name = name.trim();
            let name = if name.is_empty() {
                format!("column {}", i + 1)
            } else {
                name.to_owned()
            };
            let n = seen.entry(name.clone()).or_default();
            *n += 1;
            if *n == 1 {
                name
            } else {
                format!("{name} ({n})")
            }
        })
        .collect()
}

fn column_stats(name: String, cells: &[&str]) -> Column {
    let present: Vec<&str> = cells
        .iter()
        .map(|c| c.trim())
        .filter(|c| !c.is_empty())
        .collect();
    let numbers: Option<Vec<f64>> = present.iter().map(|c| number(c)).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for c in &present {
        *counts.entry(c).or_default() += 1;
    }
    let mut column = Column {
        name,
        kind: Kind::Empty,
        count: present.len(),
        missing: cells.len() - present.len(),
        distinct: counts.len(),
        min: None,
        max: None,
        mean: None,
        sum: None,
        top: Vec::new(),
        values: None,
    };
    match numbers {
        _ if present.is_empty() => {}
        Some(numbers) => {
            let sum: f64 = numbers.iter().sum();
            column.kind = Kind::Number;
            column.min = numbers.iter().copied().reduce(f64::min);
            column.max = numbers.iter().copied().reduce(f64::max);
            column.mean = Some(sum / numbers.len() as f64);
            column.sum = Some(sum);
            column.values = Some(cells.iter().take(MAX_CHARTED).map(|c| number(c)).collect());
        }
        None => {
            column.kind = Kind::Text;
            let mut top: Vec<(&str, usize)> = counts.into_iter().collect();
            // Most frequent first; ties in the order of first appearance.
            let first = |v: &str| present.iter().position(|p| *p == v);
            top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| first(a.0).cmp(&first(b.0))));
            column.top = top
                .into_iter()
                .take(TOP)
                .map(|(value, count)| Top {
                    value: value.to_owned(),
                    count,
                })
                .collect();
        }
    }
    column
}

/// The statistics of `args.csv`.
fn chart(args: &ChartArgs) -> Result<Chart, ToolError> {
    let mut records = parse_csv(&args.csv)?.into_iter();
    let header = records.next().ok_or_else(|| {
        ToolError::invalid_arguments("the CSV is empty: it needs a header record")
    })?;
    let names = column_names(&header);
    let rows: Vec<Vec<String>> = records.collect();
    for (i, row) in rows.iter().enumerate() {
        if row.len() > names.len() {
            return Err(ToolError::invalid_arguments(format!(
                "row {} has {} fields, the header {}",
                i + 1,
                row.len(),
                names.len()
            )));
        }
    }
    let columns: Vec<Column> = names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let cells: Vec<&str> = rows
                .iter()
                .map(|r| r.get(i).map_or("", String::as_str))
                .collect();
            column_stats(name, &cells)
        })
        .collect();
    let column = match &args.column {
        Some(wanted) => match columns.iter().find(|c| &c.name == wanted) {
            Some(c) if c.kind == Kind::Number => Some(c.name.clone()),
            Some(c) => {
                return Err(ToolError::invalid_arguments(format!(
                    "column `{wanted}` is not numeric (it is {}); numeric columns: {}",
                    kind_name(c.kind),
                    names_of(&columns, Some(Kind::Number))
                )));
            }
            None => {
                return Err(ToolError::invalid_arguments(format!(
                    "no column `{wanted}`; the columns are {}",
                    names_of(&columns, None)
                )));
            }
        },
        None => columns
            .iter()
            .find(|c| c.kind == Kind::Number)
            .map(|c| c.name.clone()),
    };
    let label_index = columns.iter().position(|c| c.kind == Kind::Text);
    let labels = rows
        .iter()
        .take(MAX_CHARTED)
        .enumerate()
        .map(|(i, row)| {
            label_index
                .and_then(|l| row.get(l))
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map_or_else(|| format!("row {}", i + 1), str::to_owned)
        })
        .collect();
    Ok(Chart {
        rows: rows.len(),
        column,
        label_column: label_index.map(|l| columns[l].name.clone()),
        labels,
        truncated: rows.len() > MAX_CHARTED,
        columns,
    })
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Number => "numbers",
        Kind::Text => "text",
        Kind::Empty => "empty",
    }
}

/// The names of the columns (of `kind`, if given), quoted, or `none`.
fn names_of(columns: &[Column], kind: Option<Kind>) -> String {
    let names: Vec<String> = columns
        .iter()
        .filter(|c| kind.is_none_or(|k| c.kind == k))
        .map(|c| format!("`{}`", c.name))
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// `x` with at most two decimals and no trailing zeros.
fn short(x: f64) -> String {
    let s = format!("{x:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// The statistics as text, for the model.
fn summary(chart: &Chart) -> String {
    let mut out = format!(
        "{} row{}, {} column{}",
        chart.rows,
        if chart.rows == 1 { "" } else { "s" },
        chart.columns.len(),
        if chart.columns.len() == 1 { "" } else { "s" },
    );
    match &chart.column {
        Some(c) => out.push_str(&format!("; charted: {c}.\n")),
        None => out.push_str("; no numeric column to chart.\n"),
    }
    for c in &chart.columns {
        out.push_str(&format!(
            "- {} ({}): {} values",
            c.name,
            kind_name(c.kind),
            c.count
        ));
        if c.missing > 0 {
            out.push_str(&format!(", {} missing", c.missing));
        }
        if let (Some(min), Some(max), Some(mean)) = (c.min, c.max, c.mean) {
            out.push_str(&format!(
                "; min {}, max {}, mean {}",
                short(min),
                short(max),
                short(mean)
            ));
        }
        if !c.top.is_empty() {
            let top: Vec<String> = c
                .top
                .iter()
                .map(|t| format!("{} ({})", t.value, t.count))
                .collect();
            out.push_str(&format!(
                "; {} distinct; most frequent: {}",
                c.distinct,
                top.join(", ")
            ));
        }
        out.push('\n');
    }
    out
}

/// Arguments that are prefixes of `typed`, case-insensitively.
fn starting_with(options: &[&str], typed: &str) -> Vec<String> {
    let typed = typed.to_lowercase();
    options
        .iter()
        .filter(|o| o.to_lowercase().starts_with(&typed))
        .map(|o| o.to_string())
        .collect()
}

struct CsvView;

impl Plugin for CsvView {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new(
                    "chart_csv",
                    "Statistics of each column of a CSV (count, missing, min, max and mean of \
                     numbers; most frequent values of text), shown to the user as an \
                     interactive bar chart and table where the client supports MCP Apps.",
                )
                .title("Chart a CSV")
                .read_only()
                .idempotent()
                .closed_world()
                .view(VIEW_URI),
                |args: ChartArgs| -> ToolResult {
                    let chart = chart(&args)?;
                    Ok(Output::text(summary(&chart)).and(Output::json(&chart)))
                },
            )
            .view(
                ResourceDef::new(VIEW_URI, "chart")
                    .title("CSV chart")
                    .description("Bar chart of a CSV's numeric column, with a column picker and a table of every column's statistics."),
                View::new().prefers_border(true),
                VIEW_HTML,
            )
            .resource_text(
                ResourceDef::new("csvview://guide", "guide")
                    .title("How chart_csv reads a CSV")
                    .mime_type("text/markdown"),
                GUIDE,
            )
            .template(
                TemplateDef::new("csvview://samples/{name}", "sample")
                    .title("Sample CSV")
                    .description("A small CSV to try chart_csv on: cities or monthly-sales.")
                    .mime_type("text/csv"),
                |uri: &str, vars: &Vars| -> ResourceResult {
                    let name = vars.get("name").map_or("", String::as_str);
                    match SAMPLES.iter().find(|(n, _)| *n == name) {
                        Some((_, csv)) => Ok(Contents::text(uri, "text/csv", *csv)),
                        // UnknownTool is the SDK's not-found.
                        None => Err(ToolError::UnknownTool(format!(
                            "no sample `{name}`; the samples are {}",
                            SAMPLES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                        ))),
                    }
                },
            )
            .complete_template("csvview://samples/{name}", "name", |typed: &str, _: &Vars| {
                let names: Vec<&str> = SAMPLES.iter().map(|(n, _)| *n).collect();
                starting_with(&names, typed)
            })
            .prompt(
                PromptDef::new(
                    "explore_csv",
                    "Answer a question about a CSV, starting from its column statistics.",
                )
                .title("Explore a CSV")
                .argument("csv", "The CSV text, with a header record.", true)
                .argument("question", "What to find out about the data.", true),
                |args: &Vars| -> PromptResult {
                    let csv = args.get("csv").map_or("", String::as_str);
                    let question = args.get("question").map_or("", String::as_str);
                    Ok(Messages::new()
                        .description("A question about a CSV")
                        .user(Output::text(format!(
                            "Here is a CSV file:\n\n```csv\n{}\n```\n\n{question}\n\n\
                             First call the `chart_csv` tool on this CSV (with `column` set to \
                             the column the question is about, if it is numeric): it returns \
                             each column's statistics and shows the user a chart. Answer from \
                             those numbers and the rows, and say which numbers you used.",
                            csv.trim_end()
                        ))))
                },
            )
            .complete_prompt("explore_csv", "question", |typed: &str, _: &Vars| {
                starting_with(QUESTIONS, typed)
            })
    }
}

mcp_wasm_sdk::export_plugin!(CsvView);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use mcp_wasm_sdk::VIEW_MIME_TYPE;
    use serde_json::{Value, json};

    fn call(args: Value) -> Result<(String, Value), ToolError> {
        let out = CsvView::router().call("chart_csv", &args.to_string())?;
        let text = out.content()[0].as_text().unwrap().to_owned();
        let structured = serde_json::from_str(out.structured_content().unwrap()).unwrap();
        Ok((text, structured))
    }

    #[test]
    fn parses_quotes_crlf_and_blank_lines() {
        let records =
            parse_csv("a,\"b,c\"\r\n\r\n\"say \"\"hi\"\"\",\"two\nlines\"\n,x\n").unwrap();
        assert_eq!(
            records,
            [
                vec!["a", "b,c"],
                vec!["say \"hi\"", "two\nlines"],
                vec!["", "x"]
            ]
        );
        assert!(parse_csv("a,\"b\n").is_err());
        assert!(parse_csv("a,b\"c\n").is_err());
        assert_eq!(parse_csv("").unwrap(), Vec::<Vec<String>>::new());
    }

    #[test]
    fn numbers_are_finite_decimals() {
        assert_eq!(number(" -3.5 "), Some(-3.5));
        assert_eq!(number("1e3"), Some(1000.0));
        assert_eq!(number("inf"), None);
        assert_eq!(number("NaN"), None);
        assert_eq!(number("1e999"), None);
        assert_eq!(number("12 apples"), None);
    }

    #[test]
    fn stats_of_numbers_and_text() {
        let csv = "city,pop,note\nParis,2,big\nLyon,5.5,\nNice,-0.5,big\n,4,x\n";
        let (text, s) = call(json!({ "csv": csv })).unwrap();
        assert_eq!(s["rows"], 4);
        assert_eq!(s["column"], "pop");
        assert_eq!(s["label_column"], "city");
        assert_eq!(s["labels"], json!(["Paris", "Lyon", "Nice", "row 4"]));
        let pop = &s["columns"][1];
        assert_eq!(pop["kind"], "number");
        assert_eq!(pop["count"], 4);
        assert_eq!(pop["min"], -0.5);
        assert_eq!(pop["max"], 5.5);
        assert_eq!(pop["mean"], 2.75);
        assert_eq!(pop["values"], json!([2.0, 5.5, -0.5, 4.0]));
        let note = &s["columns"][2];
        assert_eq!(note["kind"], "text");
        assert_eq!(note["missing"], 1);
        assert_eq!(note["distinct"], 2);
        assert_eq!(
            note["top"],
            json!([{"value": "big", "count": 2}, {"value": "x", "count": 1}])
        );
        assert!(note.get("values").is_none());
        assert!(
            text.starts_with("4 rows, 3 columns; charted: pop.\n"),
            "{text}"
        );
        assert!(text.contains("- pop (numbers): 4 values; min -0.5, max 5.5, mean 2.75\n"));
        assert!(text.contains(
            "- note (text): 3 values, 1 missing; 2 distinct; most frequent: big (2), x (1)\n"
        ));
    }

    #[test]
    fn column_choice_and_errors() {
        let csv = "name,a,b\nx,1,2\ny,3,4\n";
        assert_eq!(
            call(json!({ "csv": csv, "column": "b" })).unwrap().1["column"],
            "b"
        );
        let err = call(json!({ "csv": csv, "column": "name" })).unwrap_err();
        assert!(err.to_string().contains("not numeric"), "{err}");
        let err = call(json!({ "csv": csv, "column": "c" })).unwrap_err();
        assert!(err.to_string().contains("`name`, `a`, `b`"), "{err}");
        let err = call(json!({ "csv": "a,b\n1,2,3\n" })).unwrap_err();
        assert!(err.to_string().contains("row 1 has 3 fields"), "{err}");
        assert!(call(json!({ "csv": "\n\n" })).is_err());
        // Repeated and empty names are made unique.
        let s = call(json!({ "csv": "a,a,\n1,2,3\n" })).unwrap().1;
        let names: Vec<&str> = s["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a", "a (2)", "column 3"]);
        assert_eq!(s["labels"], json!(["row 1"]));
    }

    #[test]
    fn charts_at_most_max_charted_rows() {
        let mut csv = String::from("n\n");
        for i in 0..(MAX_CHARTED + 5) {
            csv.push_str(&format!("{i}\n"));
        }
        let s = call(json!({ "csv": csv })).unwrap().1;
        assert_eq!(s["rows"], MAX_CHARTED + 5);
        assert_eq!(s["truncated"], true);
        assert_eq!(s["labels"].as_array().unwrap().len(), MAX_CHARTED);
        assert_eq!(
            s["columns"][0]["values"].as_array().unwrap().len(),
            MAX_CHARTED
        );
        assert_eq!(s["columns"][0]["max"], (MAX_CHARTED + 4) as f64);
    }

    #[test]
    fn view_prompt_resources_and_completions() {
        let router = CsvView::router();
        let tools = router.list();
        assert_eq!(tools[0].get_view(), Some((VIEW_URI, true)));
        let view = router.read(VIEW_URI).unwrap();
        assert_eq!(view.parts()[0].mime_type(), Some(VIEW_MIME_TYPE));
        assert!(view.parts()[0].text().unwrap().contains("ui/initialize"));
        let sample = router.read("csvview://samples/cities").unwrap();
        assert!(
            sample.parts()[0]
                .text()
                .unwrap()
                .starts_with("city,country")
        );
        assert!(router.read("csvview://samples/none").is_err());
        assert_eq!(
            starting_with(&["cities", "monthly-sales"], "M"),
            ["monthly-sales"]
        );
        let args = Vars::from([
            ("csv".to_owned(), "a\n1\n".to_owned()),
            ("question".to_owned(), "What is the mean?".to_owned()),
        ]);
        let prompt = router.get_prompt("explore_csv", &args).unwrap();
        let text = prompt.messages()[0].1.as_text().unwrap();
        assert!(
            text.contains("```csv\na\n1\n```\n\nWhat is the mean?"),
            "{text}"
        );
        assert_eq!(
            router.complete_prompt_argument("explore_csv", "question", "wh", &Vars::new()),
            [QUESTIONS[0], QUESTIONS[1]]
        );
        // Every sample charts.
        for (_, csv) in SAMPLES {
            assert!(
                chart(&ChartArgs {
                    csv: csv.to_string(),
                    column: None
                })
                .unwrap()
                .column
                .is_some()
            );
        }
    }
}
