//! The layering Cargo cannot see, read from the source: no import cycle
//! between the modules of any crate of the workspace's host side (the
//! runtime crate, this crate's library and its binary), none between the
//! rooms or files of `mcp/`, the seams between those rooms, and a registry
//! that does not leak. What Cargo does see (the runtime does not depend on
//! rmcp, this crate does not depend on wasmtime) is checked with `cargo
//! tree` below, so that a dependency added by mistake fails here.
//!
//! A tree is the source directory of one crate, or of one module (`mcp`).
//! Its graph has one node per room (the files directly in the directory,
//! and each subdirectory with all its submodules as one; the root file,
//! `lib.rs`, `main.rs` or `mod.rs`, is the node named after the tree) or,
//! finer, one node per file. Edges are the paths that name a module of the
//! tree: `super::...` chains, `crate::...` (below the tree's own path), and
//! in a root or `mod.rs` its child modules' names; a path counts for the
//! deepest module it names. Comments, string literals and `#[cfg(test)]`
//! items are left out: test modules are not part of the library's import
//! graph.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where a tree's files are and how its code names it.
#[derive(Clone, Copy)]
struct Root {
    /// The root node's name.
    name: &'static str,
    /// Its directory, relative to this crate's manifest.
    dir: &'static str,
    /// The path from `crate` to the tree's root module.
    crate_path: &'static [&'static str],
    /// Whether a file (relative to `dir`) belongs to the tree.
    keep: fn(&Path) -> bool,
    /// Names at the crate's root that stand for other crates (`pub use
    /// mcp_wasm_host_runtime as runtime`): paths through them lead outside.
    other_crates: &'static [&'static str],
    /// Folders that group modules by stage (the runtime's `load/`,
    /// `call/`, ...): each module in one is a room of its own.
    stages: &'static [&'static str],
}

fn every_file(_: &Path) -> bool {
    true
}

fn is_binary(path: &Path) -> bool {
    path == Path::new("main.rs") || path.starts_with("cli")
}

/// The runtime crate (`runtime/src/`).
const RUNTIME: Root = Root {
    // `lib.rs`: `runtime` is the file `runtime.rs`, where `Runtime` lives.
    name: "lib",
    dir: "../runtime/src",
    crate_path: &[],
    keep: every_file,
    other_crates: &[],
    stages: &[
        "cache",
        "call",
        "catalog",
        "definitions",
        "egress",
        "load",
        "policy",
        "serve",
    ],
};

/// The MCP side (`host/src/mcp/`).
const MCP: Root = Root {
    name: "mcp",
    dir: "src/mcp",
    crate_path: &["mcp"],
    keep: every_file,
    other_crates: &[],
    stages: &[],
};

/// This crate's library (`host/src/` but the binary's files).
const HOST: Root = Root {
    name: "lib",
    dir: "src",
    crate_path: &[],
    keep: |path| !is_binary(path),
    other_crates: &["runtime"],
    stages: &[],
};

/// This crate's binary (`main.rs` and `cli/`).
const BIN: Root = Root {
    name: "main",
    dir: "src",
    crate_path: &[],
    keep: is_binary,
    other_crates: &[],
    stages: &[],
};

/// One source file of a tree: its module path below the tree's root and
/// its code without comments, string contents and test items.
struct Source {
    file: PathBuf,
    module: Vec<String>,
    code: Vec<char>,
}

/// The modules of one tree: `root` is its name, `crate_path` the path from
/// `crate` to it, `modules` the module path of each of its files below it
/// (the root's own is empty).
struct Tree {
    root: &'static str,
    crate_path: Vec<String>,
    other_crates: &'static [&'static str],
    stages: &'static [&'static str],
    modules: BTreeSet<Vec<String>>,
}

/// What a node of a graph stands for.
#[derive(Clone, Copy)]
enum Grain {
    /// The first module below the root (a file or a directory; in a
    /// stage's folder, the module below it), or the root.
    Room,
    /// One file (one module path).
    File,
}

impl Tree {
    fn of(root: Root, sources: &[Source]) -> Tree {
        let mut modules: BTreeSet<Vec<String>> = sources.iter().map(|s| s.module.clone()).collect();
        modules.insert(Vec::new());
        Tree {
            root: root.name,
            crate_path: root.crate_path.iter().map(|p| p.to_string()).collect(),
            other_crates: root.other_crates,
            stages: root.stages,
            modules,
        }
    }

    /// The node of a module path below the root.
    fn node(&self, module: &[String], grain: Grain) -> String {
        match (grain, module.first()) {
            (_, None) => self.root.to_string(),
            (Grain::Room, Some(first)) if module.len() > 1 && self.stages.contains(&&**first) => {
                module[..2].join("::")
            }
            (Grain::Room, Some(first)) => first.clone(),
            (Grain::File, Some(_)) => module.join("::"),
        }
    }

    /// The deepest module of the tree that `path` (below the root) names.
    fn module_of(&self, path: &[String]) -> Vec<String> {
        (0..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|m| self.modules.contains(m))
            .unwrap_or_default()
    }

    /// The child modules of `module`.
    fn children<'a>(&'a self, module: &'a [String]) -> impl Iterator<Item = &'a String> + 'a {
        self.modules
            .iter()
            .filter(move |m| m.len() == module.len() + 1 && m.starts_with(module))
            .filter_map(|m| m.last())
    }
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

fn sources(tree: Root) -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(tree.dir);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    // A module's unit tests in their own file (`foo/tests.rs`, declared
    // `#[cfg(test)] mod tests;`) are test items like an inline test module.
    files.retain(|file| file.file_name().is_none_or(|name| name != "tests.rs"));
    files.retain(|file| (tree.keep)(file.strip_prefix(&root).unwrap()));
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(&root).unwrap().with_extension("");
            let mut module: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let root_file = module.len() == 1 && ["lib", "main"].contains(&module[0].as_str());
            if root_file || module.last().is_some_and(|m| m == "mod") {
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
///
/// Why not `syn` (a workspace dependency, for `sdk-macros`): its syntax
/// tree holds the body of a macro call (`tracing::info!(...)`,
/// `matches!(x, super::Kind::A)`, `tokio::select! { ... }`) as an opaque
/// token stream, so a visitor of the tree misses the paths written there,
/// which this reader must see; and the reader's own test below reads
/// fragments that are tokens but not items. What would replace this lexer
/// is the tokenizer `syn` parses with (proc-macro2, walking the tokens),
/// but the host crate does not depend on it, and adding it as a
/// dev-dependency changes the feature resolution of dependencies shared
/// with the build (cranelift's build crates got new hashes), rebuilding
/// wasmtime for every build of the tests (issue 44 §4).
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

/// The paths that continue at `i`, each as its names: `x::y` for
/// `x::y`, each item's whole path for `{a, b::{c, d}}`, `*` and `self` as
/// they are.
fn paths_at(code: &[char], i: usize) -> Vec<Vec<String>> {
    let i = skip_space(code, i);
    match code.get(i) {
        Some('{') => {
            let mut paths = Vec::new();
            let mut j = i + 1;
            loop {
                j = skip_space(code, j);
                match code.get(j) {
                    None | Some('}') => break,
                    Some(',') => j += 1,
                    Some(_) => {
                        paths.extend(paths_at(code, j));
                        j = end_of_path(code, j).max(j + 1);
                    }
                }
            }
            paths
        }
        Some('*') => vec![vec!["*".to_string()]],
        Some(&c) if is_ident(c) => {
            let name = ident_at(code, i);
            let next = skip_space(code, i + name.len());
            if code[next..].starts_with(&[':', ':']) {
                let rest = paths_at(code, next + 2);
                if !rest.is_empty() {
                    return rest
                        .into_iter()
                        .map(|tail| std::iter::once(name.clone()).chain(tail).collect())
                        .collect();
                }
            }
            vec![vec![name]]
        }
        _ => Vec::new(),
    }
}

/// Where the path (or group item) that starts at `i` ends: at the `,` or
/// `}` that closes it, or at whatever else ends a path.
fn end_of_path(code: &[char], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while let Some(&c) = code.get(j) {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return j,
            '}' => depth -= 1,
            ',' if depth == 0 => return j,
            c if depth == 0 && !(is_ident(c) || c == ':' || c == '*' || c.is_whitespace()) => {
                return j;
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// The first names of the paths that continue at `i`, each once.
fn first_names(code: &[char], i: usize) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for path in paths_at(code, i) {
        if !names.contains(&path[0]) {
            names.push(path[0].clone());
        }
    }
    names
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

/// The nodes each node imports.
struct Graph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

/// What the code of the module `module` of `tree` imports: the nodes it
/// names at `grain` (its own left out), and the paths it names outside the
/// tree.
fn imports(
    tree: &Tree,
    module: &[String],
    code: &[char],
    grain: Grain,
) -> (BTreeSet<String>, Vec<String>) {
    let mut targets = BTreeSet::new();
    // Each path below `anchor` counts for the deepest module it names (an
    // item of a `mod.rs`, `self` or `*` for that module).
    let mut name = |anchor: &[String], paths: Vec<Vec<String>>| {
        for path in paths {
            let full: Vec<String> = anchor.iter().cloned().chain(path).collect();
            targets.insert(tree.node(&tree.module_of(&full), grain));
        }
    };
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
            "{module:?}: `super` above the {}",
            tree.root
        );
        name(&module[..module.len() - depth], paths_at(code, i));
    }
    for start in starts_of(code, "crate::") {
        // Below the tree's own path (`crate::mcp::` for `mcp/`), or outside.
        let mut at = Some(start);
        for part in &tree.crate_path {
            at = at.filter(|&i| {
                ident_at(code, i) == *part && code[i + part.len()..].starts_with(&[':', ':'])
            });
            at = at.map(|i| i + part.len() + 2);
        }
        match at {
            Some(i) if !tree.other_crates.contains(&ident_at(code, i).as_str()) => {
                name(&[], paths_at(code, i))
            }
            _ => outside.push(format!("crate::{}", ident_at(code, start))),
        }
    }
    for start in starts_of(code, "rmcp") {
        if !code.get(start).copied().is_some_and(is_ident) {
            outside.push("rmcp".to_string());
        }
    }
    // A module names its children directly (`engine::EngineError` in
    // `mod.rs`), or through `self::`.
    for start in starts_of(code, "self::") {
        name(module, paths_at(code, start));
    }
    for child in tree.children(module) {
        for start in starts_of(code, &format!("{child}::")) {
            let paths = paths_at(code, start);
            let whole = paths
                .into_iter()
                .map(|p| std::iter::once(child.clone()).chain(p).collect::<Vec<_>>());
            name(module, whole.collect());
        }
    }
    targets.remove(&tree.node(module, grain));
    (targets, outside)
}

/// The import graph of the tree `root` at `grain`.
fn graph(root: Root, grain: Grain) -> Graph {
    let sources = sources(root);
    let tree = Tree::of(root, &sources);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for source in &sources {
        let (targets, _outside) = imports(&tree, &source.module, &source.code, grain);
        edges
            .entry(tree.node(&source.module, grain))
            .or_default()
            .extend(targets);
    }
    Graph { edges }
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

/// The graph of `root` at `grain`, checked to be a real one (at least
/// `nodes` nodes, `edges` edges and each of `expected`) and to have no
/// cycle. A module in a stage's folder may name what the stage's `mod.rs`
/// defines (an edge up to its own stage is left out, as between files).
fn assert_acyclic(root: Root, grain: Grain, nodes: usize, edges: usize, expected: &[(&str, &str)]) {
    let mut graph = graph(root, grain);
    for (from, to) in &mut graph.edges {
        to.retain(|to| !from.starts_with(&format!("{to}::")));
    }
    let count: usize = graph.edges.values().map(BTreeSet::len).sum();
    // The reader must see the graph, not an empty one.
    assert!(
        graph.edges.len() >= nodes,
        "{}: nodes: {:?}",
        root.name,
        graph.edges.keys()
    );
    assert!(
        count >= edges,
        "{}: only {count} edges: {:#?}",
        root.name,
        edge_list(&graph)
    );
    for &(from, to) in expected {
        assert!(
            graph.edges.get(from).is_some_and(|e| e.contains(to)),
            "{}: the edge {from} -> {to} was not found: {:#?}",
            root.name,
            edge_list(&graph)
        );
    }
    if let Some(cycle) = find_cycle(&graph.edges) {
        panic!("import cycle in {}: {}", root.dir, cycle.join(" -> "));
    }
}

#[test]
fn the_modules_of_the_runtime_import_each_other_without_a_cycle() {
    assert_acyclic(
        RUNTIME,
        Grain::Room,
        15,
        40,
        &[
            ("call::sandbox", "capabilities"),
            ("call", "call::sandbox"),
            ("runtime", "catalog"),
            ("capabilities", "call::events"),
            ("serve::admission", "call"),
        ],
    );
}

#[test]
fn the_modules_of_the_host_library_and_binary_import_each_other_without_a_cycle() {
    // 7 edges since the fuzz checks (and their edge to `mcp`) left the
    // library for fuzz/harness.
    assert_acyclic(
        HOST,
        Grain::Room,
        8,
        7,
        &[
            ("mcp", "telemetry"),
            ("config", "source"),
            ("inspect", "config"),
        ],
    );
    assert_acyclic(BIN, Grain::File, 8, 8, &[(BIN.name, "cli")]);
}

/// Between files, finer than rooms: no file of the runtime crate or the
/// server's library imports another in a cycle, except that a submodule
/// may name what its own parent modules define (a `mod.rs` that declares
/// and re-exports its children, whose children use the types it defines,
/// is one module split over files; an edge from a file up to one of its
/// ancestors is left out, and every other edge counts).
#[test]
fn no_file_imports_another_in_a_cycle_except_up_to_its_own_parent() {
    for (root, edges) in [(RUNTIME, 100), (HOST, 40)] {
        let mut graph = graph(root, Grain::File);
        for (from, to) in &mut graph.edges {
            to.retain(|to| !(to == root.name || from.starts_with(&format!("{to}::"))));
        }
        let count: usize = graph.edges.values().map(BTreeSet::len).sum();
        assert!(count >= edges, "{}: only {count} edges", root.name);
        if let Some(cycle) = find_cycle(&graph.edges) {
            panic!("import cycle in {}: {}", root.dir, cycle.join(" -> "));
        }
    }
}

/// What Cargo keeps: the runtime crate depends, tests included, on nothing
/// of MCP or of an HTTP server framework, and this crate depends on no
/// wasmtime crate (so it cannot name a wasmtime type).
#[test]
fn cargo_keeps_the_runtime_free_of_mcp_and_the_host_free_of_wasmtime() {
    let tree = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO"))
            .args([
                "tree",
                "--offline",
                "--locked",
                "--prefix",
                "none",
                "-f",
                "{p}",
            ])
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|line| line.split_whitespace().next().map(str::to_owned))
            .collect::<BTreeSet<String>>()
    };
    let runtime = tree(&["-p", "mcp-wasm-host-runtime", "-e", "normal,build,dev"]);
    assert!(runtime.contains("wasmtime"), "{runtime:?}");
    let mcp: Vec<&String> = runtime
        .iter()
        .filter(|p| ["rmcp", "axum", "mcp-wasm-host", "tower-http"].contains(&p.as_str()))
        .collect();
    assert!(mcp.is_empty(), "the runtime crate depends on {mcp:?}");
    let host = tree(&["-p", "mcp-wasm-host", "-e", "normal,dev", "--depth", "1"]);
    assert!(
        host.contains("rmcp") && host.contains("mcp-wasm-host-runtime"),
        "{host:?}"
    );
    let wasmtime: Vec<&String> = host.iter().filter(|p| p.starts_with("wasmtime")).collect();
    assert!(
        wasmtime.is_empty(),
        "mcp-wasm-host depends on {wasmtime:?} directly"
    );
}

/// What Cargo cannot keep: wasmtime-wasi-http asks for hyper with all its
/// features, so hyper's server side is compiled into the runtime; the
/// runtime's own code never serves with it.
#[test]
fn the_runtime_serves_nothing_over_http() {
    let named: Vec<String> = sources(RUNTIME)
        .iter()
        .filter_map(|source| {
            let code: String = source
                .code
                .iter()
                .collect::<String>()
                .split_whitespace()
                .collect();
            ["hyper::server", "hyper::service", "serve_connection"]
                .iter()
                .find(|name| code.contains(*name))
                .map(|name| format!("{}: {name}", source.file.display()))
        })
        .collect();
    assert!(named.is_empty(), "{named:#?}");
}

#[test]
fn no_runtime_module_outside_the_capabilities_names_one() {
    // Every other module (loading, the call and its sandbox, admission,
    // egress, the catalog...) reaches the capabilities through the registry
    // only (`Grants`, `CallCaps` and the hooks it generates): denials,
    // redaction, failure causes and the log budget included. Unit tests
    // may build one capability's policy to test with.
    // The capabilities' modules (each file or directory beside the
    // registry) and the registry's fields (named as the capabilities are).
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(RUNTIME.dir)
        .join("capabilities");
    let modules: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
        .filter(|stem| stem != "mod" && stem != "tests")
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(modules.len() >= 7, "{modules:?}");
    let fields = mcp_wasm_host::runtime::capabilities::NAMES;
    let mut named = Vec::new();
    for source in sources(RUNTIME) {
        let stage = source.module.first().map(String::as_str);
        let unit_tests = source.module.last().is_some_and(|m| m == "tests");
        if stage == Some("capabilities") || unit_tests {
            continue;
        }
        let code: String = source.code.iter().collect();
        let code: String = code.split_whitespace().collect();
        for module in &modules {
            if code.contains(&format!("capabilities::{module}")) {
                named.push(format!("{}: capabilities::{module}", source.file.display()));
            }
        }
        for field in fields {
            for holder in ["caps.", "grants."] {
                if code.contains(&format!("{holder}{field}."))
                    || code.contains(&format!("{holder}{field})"))
                {
                    named.push(format!("{}: {holder}{field}", source.file.display()));
                }
            }
        }
    }
    assert!(named.is_empty(), "{named:#?}");
}

/// The edges of `graph`, each as `from -> to`, for messages.
fn edge_list(graph: &Graph) -> Vec<String> {
    graph
        .edges
        .iter()
        .flat_map(|(from, to)| to.iter().map(move |to| format!("{from} -> {to}")))
        .collect()
}

#[test]
fn the_rooms_and_files_of_mcp_import_each_other_without_a_cycle() {
    assert_acyclic(
        MCP,
        Grain::Room,
        4,
        3,
        &[
            ("transport", "protocol"),
            ("transport", "oauth"),
            (MCP.name, "protocol"),
        ],
    );
    assert_acyclic(
        MCP,
        Grain::File,
        30,
        50,
        &[
            ("protocol::handler", "protocol::server"),
            ("protocol::tool_call", "protocol::server"),
            (
                "protocol::to_client::rounds",
                "protocol::to_client::requests",
            ),
            ("protocol::resources_prompts", "protocol::server"),
            ("protocol::convert_served", "protocol::convert"),
            (
                "transport::upstream_gaps::stdio",
                "transport::upstream_gaps::stdio::transport",
            ),
            (
                "transport::upstream_gaps::stdio::lines",
                "transport::upstream_gaps::jsonrpc",
            ),
            ("oauth::token", "oauth::jwks"),
        ],
    );
}

/// The seam between the rooms of `mcp/`: the transport takes from the
/// protocol room only what `protocol/mod.rs` exports (the `McpServer` it
/// serves), never one of the room's files; the protocol room knows no
/// transport, and `oauth/` neither of them.
#[test]
fn the_transport_names_only_the_exports_of_the_protocol() {
    let files = graph(MCP, Grain::File);
    let reached: Vec<String> = files
        .edges
        .iter()
        .filter(|(from, _)| from.starts_with("transport"))
        .flat_map(|(from, to)| to.iter().map(move |to| (from, to)))
        .filter(|(_, to)| to.starts_with("protocol::"))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(
        reached.is_empty(),
        "the transport reaches into protocol/ (name it through protocol/mod.rs): {reached:#?}"
    );
    let rooms = graph(MCP, Grain::Room);
    for (room, may) in [
        ("protocol", &[][..]),
        ("oauth", &[][..]),
        ("transport", &["protocol", "oauth"][..]),
    ] {
        let names: Vec<&String> = rooms.edges[room]
            .iter()
            .filter(|to| !may.contains(&to.as_str()))
            .collect();
        assert!(names.is_empty(), "{room}/ imports {names:?}");
    }
}

/// A call's traffic to the client (`protocol/to_client/`) is one place: it
/// needs nothing of the protocol room but the task store.
#[test]
fn a_calls_traffic_to_the_client_needs_nothing_of_the_protocol_but_the_task_store() {
    let files = graph(MCP, Grain::File);
    let names: Vec<String> = files
        .edges
        .iter()
        .filter(|(from, _)| from.starts_with("protocol::to_client"))
        .flat_map(|(from, to)| to.iter().map(move |to| (from, to)))
        .filter(|(_, to)| !(to.starts_with("protocol::to_client") || *to == "protocol::tasks"))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(names.is_empty(), "{names:#?}");
}

/// What the transports do in place of rmcp and hyper-util
/// (`transport/upstream_gaps/`) stands on its own, so that each part can go
/// when its upstream changes: it names nothing of the transport around it.
#[test]
fn the_upstream_gaps_name_nothing_of_the_transport_around_them() {
    const GAPS: &str = "transport::upstream_gaps";
    let files = graph(MCP, Grain::File);
    let inside = files.edges.keys().filter(|from| from.starts_with(GAPS));
    assert!(inside.count() >= 5, "{:?}", files.edges.keys());
    let names: Vec<String> = files
        .edges
        .iter()
        .filter(|(from, _)| from.starts_with(GAPS))
        .flat_map(|(from, to)| to.iter().map(move |to| (from, to)))
        .filter(|(_, to)| to.starts_with("transport") && !to.starts_with(GAPS))
        .map(|(from, to)| format!("{from} -> {to}"))
        .collect();
    assert!(names.is_empty(), "{names:#?}");
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
    // A tree below the crate's root (`crate::runtime::...`), as `mcp/` is.
    let tree = Tree {
        root: "runtime",
        crate_path: vec!["runtime".to_string()],
        other_crates: &[],
        stages: &[],
        modules: [&[][..], &["output"], &["policy"], &["capabilities"]]
            .map(|m| m.iter().map(|n| n.to_string()).collect())
            .into(),
    };
    let code = blank_comments_and_strings(
        "use super::bindings::x;\npub mod cost { use super::{Content}; use super::super::policy::Limits; }\nfn f() { crate::runtime::capabilities::NAMES; crate::mcp::x(); rmcp::y(); }\n",
    );
    let (targets, outside) = imports(&tree, &["output".to_string()], &code, Grain::Room);
    assert_eq!(
        targets,
        ["policy", "capabilities", "runtime"]
            .map(String::from)
            .into()
    );
    assert_eq!(outside, ["crate::mcp", "rmcp"]);
}
