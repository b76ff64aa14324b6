//! The runtime's layering, read from its source: no import cycle between the
//! modules of `host/src/runtime/`, and nothing of MCP imported there.
//!
//! Nodes are the files directly in `runtime/` (`mod.rs` is the node
//! `runtime`, the facade) and `capabilities` with all its submodules as one.
//! Edges are the paths that name a module of the runtime: `super::...`
//! chains, `crate::runtime::...`, and in `mod.rs` its child modules' names.
//! Comments, string literals and `#[cfg(test)]` items are left out: test
//! modules are not part of the library's import graph.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The root node: `runtime/mod.rs`.
const ROOT: &str = "runtime";

/// One source file of the runtime: its module path below `runtime` and its
/// code without comments, string contents and test items.
struct Source {
    file: PathBuf,
    module: Vec<String>,
    code: Vec<char>,
}

fn runtime_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn sources() -> Vec<Source> {
    let root = runtime_dir();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(&root).unwrap().with_extension("");
            let mut module: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let code = without_tests(&blank_comments_and_strings(&text));
            Source { file, module, code }
        })
        .collect()
}

/// The text with comments and the contents of string and character literals
/// replaced by spaces (newlines kept), so that neither braces nor paths in
/// them count.
fn blank_comments_and_strings(text: &str) -> Vec<char> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = chars.clone();
    let blank = |out: &mut Vec<char>, from: usize, to: usize| {
        for c in &mut out[from..to.min(chars.len())] {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        let at = |k: usize| rest.get(k).copied();
        if rest.starts_with(&['/', '/']) {
            let end = rest
                .iter()
                .position(|&c| c == '\n')
                .map_or(chars.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(&['/', '*']) {
            let (mut depth, mut j) = (0usize, i);
            while j < chars.len() {
                if chars[j..].starts_with(&['/', '*']) {
                    depth += 1;
                    j += 2;
                } else if chars[j..].starts_with(&['*', '/']) {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if at(0) == Some('r')
            && matches!(at(1), Some('"' | '#'))
            && (i == 0 || !is_ident(chars[i - 1]))
        {
            let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
            if at(1 + hashes) != Some('"') {
                i += 1;
                continue;
            }
            let mut close = vec!['"'];
            close.extend(std::iter::repeat_n('#', hashes));
            let start = i + 2 + hashes;
            let end = (start..chars.len())
                .find(|&j| chars[j..].starts_with(&close))
                .map_or(chars.len(), |j| j + close.len());
            blank(&mut out, start, end.saturating_sub(close.len()));
            i = end;
        } else if at(0) == Some('"') {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else if at(0) == Some('\'') && (at(1) == Some('\\') || at(2) == Some('\'')) {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '\'' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            blank(&mut out, i + 1, j);
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The code without the items marked `#[cfg(test)]` (each up to its closing
/// brace, or its semicolon).
fn without_tests(code: &[char]) -> Vec<char> {
    let marker: Vec<char> = "#[cfg(test)]".chars().collect();
    let mut out = Vec::with_capacity(code.len());
    let mut i = 0;
    while i < code.len() {
        if !code[i..].starts_with(&marker) {
            out.push(code[i]);
            i += 1;
            continue;
        }
        let mut j = i + marker.len();
        while j < code.len() && code[j] != '{' && code[j] != ';' {
            j += 1;
        }
        if j < code.len() && code[j] == '{' {
            let mut depth = 0usize;
            while j < code.len() {
                match code[j] {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        i = j + 1;
    }
    out
}

/// The spans of the inline modules (`mod name { ... }`) of `code`.
fn inline_modules(code: &[char]) -> Vec<std::ops::Range<usize>> {
    let mut spans = Vec::new();
    for start in starts_of(code, "mod ") {
        let name = ident_at(code, skip_space(code, start));
        let open = skip_space(code, skip_space(code, start) + name.len());
        if name.is_empty() || code.get(open) != Some(&'{') {
            continue;
        }
        let mut depth = 0usize;
        for (j, &c) in code.iter().enumerate().skip(open) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        spans.push(open..j);
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    spans
}

fn ident_at(code: &[char], i: usize) -> String {
    code[i..].iter().take_while(|&&c| is_ident(c)).collect()
}

fn skip_space(code: &[char], mut i: usize) -> usize {
    while i < code.len() && code[i].is_whitespace() {
        i += 1;
    }
    i
}

/// The first names of the paths that continue at `i`: `x` for `x::...`,
/// each item's first name for `{a, b::c}`, `*` or `self` as they are.
fn first_names(code: &[char], i: usize) -> Vec<String> {
    let i = skip_space(code, i);
    match code.get(i) {
        Some('{') => {
            let mut names = Vec::new();
            let (mut depth, mut j, mut expect) = (0usize, i, true);
            while j < code.len() {
                match code[j] {
                    '{' => {
                        depth += 1;
                        if depth == 1 {
                            expect = true;
                        }
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => expect = true,
                    '*' if depth == 1 && expect => {
                        names.push("*".to_string());
                        expect = false;
                    }
                    c if depth == 1 && expect && is_ident(c) => {
                        let name = ident_at(code, j);
                        j += name.len();
                        names.push(name);
                        expect = false;
                        continue;
                    }
                    _ => {}
                }
                j += 1;
            }
            names
        }
        Some('*') => vec!["*".to_string()],
        Some(&c) if is_ident(c) => vec![ident_at(code, i)],
        _ => Vec::new(),
    }
}

/// The paths in `code` that start with `prefix` (a whole word, not after
/// `::`): the positions just after it.
fn starts_of(code: &[char], prefix: &str) -> Vec<usize> {
    let prefix: Vec<char> = prefix.chars().collect();
    (0..code.len())
        .filter(|&i| code[i..].starts_with(&prefix))
        .filter(|&i| i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == ':'))
        .map(|i| i + prefix.len())
        .collect()
}

/// The nodes each node imports, and every runtime path that names the crate
/// outside the runtime or `rmcp`.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
    outside: Vec<String>,
}

/// The node of a module path below `runtime`.
fn node_of(module: &[String]) -> String {
    module.first().cloned().unwrap_or(ROOT.to_string())
}

/// What the code of the module `module` imports: the nodes it names (its
/// own left out), and the paths it names outside the runtime. `children`
/// are the runtime's child modules.
fn imports(
    module: &[String],
    code: &[char],
    children: &BTreeSet<String>,
) -> (BTreeSet<String>, Vec<String>) {
    // A name below the root module: its child module's node, or (an item
    // of `mod.rs`, `self`, `*`) the root.
    let below_root = |name: &str| {
        if children.contains(name) {
            name.to_string()
        } else {
            ROOT.to_string()
        }
    };
    let mut targets = BTreeSet::new();
    let mut outside = Vec::new();
    let inline = inline_modules(code);
    for start in starts_of(code, "super::") {
        let mut depth = 1;
        let mut i = start;
        while code[i..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
            depth += 1;
            i += "super::".len();
        }
        // `super` in an inline module (`mod cost { ... }`) first climbs to
        // the file's own module.
        let nesting = inline.iter().filter(|r| r.contains(&start)).count();
        if depth <= nesting {
            continue;
        }
        let depth = depth - nesting;
        assert!(
            depth <= module.len(),
            "{module:?}: `super` above the runtime"
        );
        let anchor = &module[..module.len() - depth];
        for name in first_names(code, i) {
            targets.insert(if anchor.is_empty() {
                below_root(&name)
            } else {
                node_of(anchor)
            });
        }
    }
    for start in starts_of(code, "crate::") {
        let name = ident_at(code, start);
        if name == "runtime" && code[start + name.len()..].starts_with(&[':', ':']) {
            for name in first_names(code, start + name.len() + 2) {
                targets.insert(below_root(&name));
            }
        } else {
            outside.push(format!("crate::{name}"));
        }
    }
    for start in starts_of(code, "rmcp") {
        if !code.get(start).copied().is_some_and(is_ident) {
            outside.push("rmcp".to_string());
        }
    }
    if module.is_empty() {
        // `mod.rs` names its children directly: `engine::EngineError`.
        for child in children {
            if !starts_of(code, &format!("{child}::")).is_empty() {
                targets.insert(child.clone());
            }
        }
    }
    targets.remove(&node_of(module));
    (targets, outside)
}

fn graph() -> Graph {
    let sources = sources();
    let children: BTreeSet<String> = sources
        .iter()
        .filter_map(|s| s.module.first().cloned())
        .collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut outside = Vec::new();
    for source in &sources {
        let (targets, names) = imports(&source.module, &source.code, &children);
        edges
            .entry(node_of(&source.module))
            .or_default()
            .extend(targets);
        outside.extend(
            names
                .into_iter()
                .map(|n| format!("{}: {n}", source.file.display())),
        );
    }
    Graph { edges, outside }
}

/// A cycle of the graph, as its nodes with the first repeated at the end.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut done, &mut Vec::new()))
}

#[test]
fn the_modules_of_the_runtime_import_each_other_without_a_cycle() {
    let graph = graph();
    let count: usize = graph.edges.values().map(BTreeSet::len).sum();
    // The reader must see the graph, not an empty one: every node but the
    // leaves imports something, and there are a few dozen edges.
    assert!(graph.edges.len() >= 15, "nodes: {:?}", graph.edges.keys());
    assert!(count >= 40, "only {count} edges found: {:#?}", graph.edges);
    for (from, to) in [
        ("sandbox", "capabilities"),
        ("call", "sandbox"),
        (ROOT, "catalog"),
        ("capabilities", "events"),
    ] {
        assert!(
            graph.edges[from].contains(to),
            "the edge {from} -> {to} was not found: {:#?}",
            graph.edges
        );
    }
    if let Some(cycle) = find_cycle(&graph.edges) {
        panic!("import cycle in runtime/: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_runtime_imports_nothing_of_mcp() {
    let graph = graph();
    let mcp: Vec<&String> = graph
        .outside
        .iter()
        .filter(|p| p.ends_with("crate::mcp") || p.ends_with("rmcp"))
        .collect();
    assert!(mcp.is_empty(), "runtime/ names MCP: {mcp:#?}");
}

#[test]
fn the_reader_finds_edges_in_groups_and_chains_but_not_in_comments_strings_or_tests() {
    let code = blank_comments_and_strings(
        "use super::{a, b::{c, d}, *};\n// use super::e;\nlet s = \"super::f\";\nlet c = '{';\n#[cfg(test)]\nmod tests { use super::g; }\nuse super::super::h;\n",
    );
    let code = without_tests(&code);
    let found: Vec<Vec<String>> = starts_of(&code, "super::")
        .into_iter()
        .map(|i| first_names(&code, i))
        .collect();
    assert_eq!(
        found,
        [vec!["a", "b", "*"], vec!["super"]],
        "{}",
        code.iter().collect::<String>()
    );
}

#[test]
fn super_in_an_inline_module_climbs_to_its_file_first() {
    let children: BTreeSet<String> = ["output", "policy", "capabilities"]
        .map(String::from)
        .into();
    let code = blank_comments_and_strings(
        "use super::bindings::x;\npub mod cost { use super::{Content}; use super::super::policy::Limits; }\nfn f() { crate::runtime::capabilities::NAMES; crate::mcp::x(); rmcp::y(); }\n",
    );
    let (targets, outside) = imports(&["output".to_string()], &code, &children);
    assert_eq!(
        targets,
        ["policy", "capabilities", ROOT].map(String::from).into()
    );
    assert_eq!(outside, ["crate::mcp", "rmcp"]);
}
