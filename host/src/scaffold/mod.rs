//! `mcp-wasm-host new --lang LANG NAME`: writes a ready plugin project (a
//! tool, its build, a test that calls the tool through the host, and a
//! README) from the templates in `host/templates/`, which are embedded in
//! the binary.
//!
//! A template is a directory of files whose paths and contents may hold
//! placeholders: `@NAME@` (the project name), `@NAME_SNAKE@` (the name with
//! `_` for `-`), those of the SDK ([`source::SdkSource::vars`]: the version,
//! and each language's dependency on its SDK) and a language's own
//! (`LANGUAGES`). A file named `dot-X` is written as `.X`, a `.tmpl` suffix
//! is dropped, and one starting with `#!` is made executable. Adding a
//! language is one template directory and one line in [`LANGUAGES`].
//!
//! A project depends on the SDK packages at this host's version, by name,
//! the way its language does (crates.io, PyPI, npm, the Go module proxy,
//! pkg-config), so `new` needs nothing but this binary. `--sdk REPO` makes
//! it depend on a checkout of the repository by path instead, for work on
//! the SDKs. `new` never overwrites a file: it writes only into a new or
//! empty directory, and removes what it wrote if it cannot finish.

pub mod source;

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

include!(concat!(env!("OUT_DIR"), "/templates.rs"));

/// The longest project name.
pub const MAX_NAME_LEN: usize = 64;

use source::SdkSource;

/// A file every SDK checkout holds.
const SDK_MARKER: &str = "wit/plugin.wit";

/// A language `new` writes projects in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// Its `--lang` value.
    pub name: &'static str,
    /// Its directory under `host/templates/`.
    template: &'static str,
    /// Placeholders of its own.
    vars: &'static [(&'static str, &'static str)],
    /// What an SDK checkout (`--sdk`) must hold for it.
    needs: &'static [&'static str],
    /// Files copied from an SDK checkout (`--sdk`) into the project, when
    /// there.
    seeds: &'static [&'static str],
}

impl Language {
    const fn new(
        name: &'static str,
        template: &'static str,
        needs: &'static [&'static str],
    ) -> Self {
        Language {
            name,
            template,
            vars: &[],
            needs,
            seeds: &[],
        }
    }

    const fn vars(mut self, vars: &'static [(&'static str, &'static str)]) -> Self {
        self.vars = vars;
        self
    }

    const fn seeds(mut self, seeds: &'static [&'static str]) -> Self {
        self.seeds = seeds;
        self
    }
}

/// The languages, by `--lang` value.
pub const LANGUAGES: &[Language] = &[
    Language::new("rust", "rust", &["sdk-guest/Cargo.toml"]).seeds(&["Cargo.lock"]),
    Language::new("python", "python", &["sdk-python/mcp_wasm_sdk/__init__.py"]),
    Language::new("ts", "js", &["sdk-js/package.json"]).vars(&[
        ("EXT", "ts"),
        ("LANGUAGE", "TypeScript"),
        // The type check runs with what the project's own npm install
        // brings: typescript, and the SDK's types.
        ("DEV_DEPS", ",\n    \"typescript\": \"7.0.2\""),
        ("TEST_SCRIPT", "tsc --noEmit && node --test test/tool.test.js"),
        (
            "TYPES_NOTE",
            " esbuild strips types without checking them;\n`npm test` checks them first (`tsc --noEmit`, with `tsconfig.json`).",
        ),
        ("TEST_NOTE", " It type-checks `src/` first."),
    ]),
    Language::new("js", "js", &["sdk-js/package.json"]).vars(&[
        ("EXT", "js"),
        ("LANGUAGE", "JavaScript"),
        ("DEV_DEPS", ""),
        ("TEST_SCRIPT", "node --test test/tool.test.js"),
        ("TYPES_NOTE", ""),
        ("TEST_NOTE", ""),
    ]),
    Language::new(
        "c",
        "c",
        &["sdk-c/include/mcp_wasm_sdk.h", "sdk-tool/Cargo.toml"],
    ),
    Language::new("go", "go", &["sdk-go/go.mod", "sdk-tool/Cargo.toml"]),
];

/// `--lang` takes the name of one of [`LANGUAGES`].
impl clap::ValueEnum for Language {
    fn value_variants<'a>() -> &'a [Self] {
        LANGUAGES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name))
    }
}

/// `mcp-wasm-host new`'s arguments.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The language of the project.
    #[arg(long)]
    pub lang: Language,
    /// The project's name, which also names its directory, package and
    /// component: 1 to 64 of `a-z 0-9 - _`, starting with a letter.
    #[arg(value_parser = ProjectName::parse)]
    pub name: ProjectName,
    /// The directory to make the project in (as `DIR/NAME`).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// For work on the SDKs: use the SDK of this mcp-wasm-host checkout, by
    /// path, instead of the SDK packages at this host's version.
    #[arg(long, value_name = "REPO", env = "MCP_WASM_HOST_SDK")]
    pub sdk: Option<PathBuf>,
}

/// A valid project name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectName(String);

/// Why a project name is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "{name:?} {problem}: a project name is 1 to {MAX_NAME_LEN} characters of a-z, 0-9, `-` and `_`, starting with a letter, as it names the Rust crate, the npm package, the component file and the plugin"
)]
pub struct NameError {
    name: String,
    problem: &'static str,
}

impl ProjectName {
    /// Checks `name`.
    pub fn parse(name: &str) -> Result<Self, NameError> {
        let problem = match name.chars().next() {
            None => Some("is empty"),
            Some(c) if !c.is_ascii_lowercase() => Some("does not start with a lowercase letter"),
            _ if name.len() > MAX_NAME_LEN => Some("is too long"),
            _ if !name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_') =>
            {
                Some("holds a character other than a-z, 0-9, `-` and `_`")
            }
            _ => None,
        };
        match problem {
            Some(problem) => Err(NameError {
                name: name.to_owned(),
                problem,
            }),
            None => Ok(ProjectName(name.to_owned())),
        }
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why `new` wrote no project.
#[derive(Debug, thiserror::Error)]
pub enum NewError {
    /// The project directory exists and is not an empty directory.
    #[error("{} already exists and is not an empty directory; `new` writes only into a new or empty one", .0.display())]
    Occupied(PathBuf),
    /// The SDK checkout lacks what the language needs.
    #[error("{} is not an mcp-wasm-host checkout with the {lang} SDK: it has no {missing}; pass --sdk with the path of one", .sdk.display())]
    SdkMissing {
        /// The checkout given or found.
        sdk: PathBuf,
        /// The language asked for.
        lang: &'static str,
        /// The file or directory the language's SDK needs.
        missing: &'static str,
    },
    /// The SDK path cannot be written into the project's build files.
    #[error(
        "the SDK path {path:?} holds {found:?}, which the project's build files (TOML, JSON and shell strings) cannot hold unquoted; use a checkout at a path without `\"`, `\\`, `$`, backquotes or control characters"
    )]
    SdkPath {
        /// The SDK path.
        path: String,
        /// The character it cannot hold.
        found: char,
    },
    /// Reading from the SDK checkout failed.
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Writing the project failed; what was written has been removed.
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl NewError {
    /// The process exit code (sysexits.h; a bad NAME or `--lang` value is a
    /// usage error, 2, reported by the argument parser).
    pub fn exit_code(&self) -> u8 {
        match self {
            NewError::SdkMissing { .. } | NewError::SdkPath { .. } => 66,
            NewError::Occupied(_) => 73,
            NewError::Read { .. } | NewError::Write { .. } => 74,
        }
    }
}

/// One file of a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectFile {
    /// Its path in the project, with `/` separators.
    pub path: String,
    /// Its contents.
    pub contents: String,
}

impl ProjectFile {
    /// Whether it is written executable: a script (`#!` first).
    pub fn executable(&self) -> bool {
        self.contents.starts_with("#!")
    }
}

/// A project written by `new`.
#[derive(Debug)]
pub struct Created {
    /// Its directory.
    pub dir: PathBuf,
    /// Its language.
    pub lang: &'static str,
    /// Its files.
    pub files: Vec<ProjectFile>,
}

impl fmt::Display for Created {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Created the {} project {}:",
            self.lang,
            self.dir.display()
        )?;
        for file in &self.files {
            writeln!(f, "  {}", file.path)?;
        }
        let readme = self.files.iter().find(|file| file.path == "README.md");
        let commands = readme.map(|r| ReadmeCommands::of(&r.contents));
        if let Some(ReadmeCommands {
            build: Some(build),
            test: Some(test),
        }) = commands
        {
            writeln!(f, "\nNext, in that directory (see README.md):")?;
            for line in build.lines().chain(test.lines()) {
                writeln!(f, "  {line}")?;
            }
        }
        Ok(())
    }
}

/// The build and test commands a project's README documents: the first
/// ```` ```sh ```` block under its `## Build` and `## Test` headings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadmeCommands {
    /// The build command(s), one a line.
    pub build: Option<String>,
    /// The test command(s), one a line.
    pub test: Option<String>,
}

impl ReadmeCommands {
    /// Reads them from a README.
    pub fn of(readme: &str) -> Self {
        ReadmeCommands {
            build: sh_block(readme, "## Build"),
            test: sh_block(readme, "## Test"),
        }
    }
}

/// The first ```` ```sh ```` block after the line `heading`, before the
/// next heading of any level.
fn sh_block(readme: &str, heading: &str) -> Option<String> {
    let mut lines = readme.lines().skip_while(|line| *line != heading).skip(1);
    lines
        .by_ref()
        .take_while(|line| !line.starts_with('#'))
        .find(|line| *line == "```sh")?;
    let block: Vec<&str> = lines.take_while(|line| *line != "```").collect();
    Some(block.join("\n"))
}

/// Writes the project `args` asks for.
pub fn run(args: &NewArgs) -> Result<Created, NewError> {
    let checkout = args
        .sdk
        .as_deref()
        .map(|repo| sdk_checkout(repo, &args.lang))
        .transpose()?;
    let source = match &checkout {
        Some(repo) => SdkSource::Checkout(repo),
        None => SdkSource::Packages,
    };
    let files = render_project(&args.lang, &args.name, source)?;
    let dir = args.dir.join(args.name.as_str());
    write_project(&dir, &files)?;
    Ok(Created {
        dir,
        lang: args.lang.name,
        files,
    })
}

/// The SDK checkout `given` (`--sdk`): absolute, holding what `lang` needs,
/// and writable into build files.
fn sdk_checkout(given: &Path, lang: &Language) -> Result<PathBuf, NewError> {
    let missing = |missing| NewError::SdkMissing {
        sdk: given.to_owned(),
        lang: lang.name,
        missing,
    };
    let sdk = given.canonicalize().map_err(|_| missing(SDK_MARKER))?;
    if let Some(needed) = std::iter::once(&SDK_MARKER)
        .chain(lang.needs)
        .find(|needed| !sdk.join(needed).is_file())
    {
        return Err(missing(needed));
    }
    check_sdk_path(&sdk)?;
    Ok(sdk)
}

/// Refuses a path the build files could not hold in a double-quoted TOML,
/// JSON or shell string as it is.
fn check_sdk_path(sdk: &Path) -> Result<(), NewError> {
    let path = sdk.to_string_lossy();
    match path
        .chars()
        .find(|c| matches!(c, '"' | '\\' | '$' | '`' | '\u{fffd}') || c.is_control())
    {
        Some(found) => Err(NewError::SdkPath {
            path: path.into_owned(),
            found,
        }),
        None => Ok(()),
    }
}

/// The files of a `lang` project named `name`, with the SDK from `source`.
fn render_project(
    lang: &Language,
    name: &ProjectName,
    source: SdkSource,
) -> Result<Vec<ProjectFile>, NewError> {
    let snake = name.as_str().replace('-', "_");
    let sdk_vars = source.vars();
    let mut vars = vec![("NAME", name.as_str()), ("NAME_SNAKE", snake.as_str())];
    vars.extend(sdk_vars.iter().map(|(k, v)| (*k, v.as_str())));
    vars.extend(lang.vars.iter().copied());
    let mut files: Vec<ProjectFile> = template_files(lang.template)
        .iter()
        .map(|(path, contents)| ProjectFile {
            path: render(&dotted(path), &vars),
            contents: render(contents, &vars),
        })
        .collect();
    let seeds = match source {
        SdkSource::Checkout(repo) => lang.seeds.iter().map(|seed| (repo, *seed)).collect(),
        SdkSource::Packages => Vec::new(),
    };
    for (sdk, seed) in seeds {
        let path = sdk.join(seed);
        match std::fs::read_to_string(&path) {
            Ok(contents) => files.push(ProjectFile {
                path: (*seed).to_owned(),
                contents,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(NewError::Read { path, source }),
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(files)
}

/// The files of the template directory `template`.
fn template_files(template: &str) -> &'static [(&'static str, &'static str)] {
    TEMPLATES
        .iter()
        .find(|(dir, _)| *dir == template)
        .map(|(_, files)| *files)
        .unwrap_or(&[])
}

/// A template path as written: each `dot-X` segment made `.X`, and a
/// `.tmpl` suffix dropped (a template's `Cargo.toml` is `Cargo.toml.tmpl`, as
/// `cargo package` leaves out any directory holding a `Cargo.toml`).
fn dotted(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            let segment = segment.strip_suffix(".tmpl").unwrap_or(segment);
            match segment.strip_prefix("dot-") {
                Some(rest) => format!(".{rest}"),
                None => segment.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` with every `@KEY@` of `vars` replaced by its value, in one pass
/// (a value is never searched for placeholders itself).
fn render(text: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let found = vars.iter().find_map(|(key, value)| {
            after
                .strip_prefix(key)
                .and_then(|tail| tail.strip_prefix('@'))
                .map(|tail| (*value, tail))
        });
        match found {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push('@');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Writes `files` into `dir`, which must be new or empty. Never replaces a
/// file; on failure removes what it wrote.
fn write_project(dir: &Path, files: &[ProjectFile]) -> Result<(), NewError> {
    if dir.exists() || dir.is_symlink() {
        let empty = std::fs::read_dir(dir)
            .map(|mut entries| entries.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(NewError::Occupied(dir.to_owned()));
        }
    }
    let mut written = Written::default();
    let result = files
        .iter()
        .try_for_each(|file| written.file(dir, file))
        .and_then(|()| written.dir_all(dir));
    if result.is_err() {
        written.undo();
    }
    result
}

/// What [`write_project`] made, to undo it.
#[derive(Debug, Default)]
struct Written {
    paths: Vec<PathBuf>,
}

impl Written {
    /// Makes `dir` and the directories above it that are missing.
    fn dir_all(&mut self, dir: &Path) -> Result<(), NewError> {
        let missing: Vec<&Path> = dir.ancestors().take_while(|d| !d.exists()).collect();
        for d in missing.into_iter().rev() {
            match std::fs::create_dir(d) {
                Ok(()) => self.paths.push(d.to_owned()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(source) => {
                    return Err(NewError::Write {
                        path: d.to_owned(),
                        source,
                    });
                }
            }
        }
        Ok(())
    }

    /// Writes `file` below `dir`; fails if it exists.
    fn file(&mut self, dir: &Path, file: &ProjectFile) -> Result<(), NewError> {
        let path = file
            .path
            .split('/')
            .fold(dir.to_owned(), |path, segment| path.join(segment));
        if let Some(parent) = path.parent() {
            self.dir_all(parent)?;
        }
        let fail = |source| NewError::Write {
            path: path.clone(),
            source,
        };
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt as _;
            options.mode(if file.executable() { 0o755 } else { 0o644 });
        }
        let mut out = options.open(&path).map_err(fail)?;
        self.paths.push(path.clone());
        out.write_all(file.contents.as_bytes()).map_err(fail)?;
        out.sync_all().map_err(fail)
    }

    /// Removes what was made, newest first.
    fn undo(self) {
        for path in self.paths.into_iter().rev() {
            let _ = if path.is_dir() {
                std::fs::remove_dir(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

#[cfg(test)]
mod tests;
