//! What `serve` says when its plugins directory gives it nothing to serve:
//! missing, not a directory or unreadable (an error that stops the server),
//! or empty while the policy names no `source` (a warning). Each message
//! names the directory as an absolute path (the working directory of a
//! server a client starts is not obvious) and says what to do: on the
//! command line, in the MCP bundle's settings, and in a container, where the
//! directory is a volume.

use std::io::ErrorKind;
use std::path::Path;

/// How to give a container its plugins: the same line for every case.
fn in_a_container(dir: &Path) -> String {
    format!(
        "in a container, mount your plugins there: `podman run -v ./plugins:{}:ro …` (docker run -v, or a Kubernetes volumeMount)",
        dir.display()
    )
}

/// How to name another directory, on the command line and in the bundle.
const NAME_ANOTHER: &str = "name the directory that holds them with --plugins DIR (or MCP_WASM_HOST_PLUGINS; in Claude Desktop, the mcp-wasm-host extension's \"Plugins folder\" setting)";

/// Why `serve` cannot start on `dir`, which `read_dir` refused with `error`.
pub fn unreadable(dir: &Path, error: &std::io::Error) -> String {
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
    let shown = absolute.display();
    match error.kind() {
        ErrorKind::NotFound => format!(
            "the plugins directory {shown} does not exist: create it and put your plugin components (*.wasm) in it, or {NAME_ANOTHER}; {}",
            in_a_container(&absolute)
        ),
        ErrorKind::NotADirectory => format!(
            "the plugins directory {shown} is not a directory: it must be the directory that holds the plugin components (*.wasm), not a file; {NAME_ANOTHER}"
        ),
        ErrorKind::PermissionDenied => format!(
            "cannot read the plugins directory {shown}: permission denied; {}",
            make_readable(&shown.to_string())
        ),
        _ => format!("cannot read the plugins directory {shown}: {error}"),
    }
}

/// How to let the server read a directory it was denied.
#[cfg(unix)]
fn make_readable(shown: &str) -> String {
    format!(
        "make it readable and searchable by the user the server runs as (uid {}), e.g. `chmod a+rx {shown}`",
        rustix::process::geteuid().as_raw()
    )
}

/// How to let the server read a directory it was denied.
#[cfg(not(unix))]
fn make_readable(_shown: &str) -> String {
    "give the user the server runs as the right to list the folder and read its files".to_owned()
}

/// The warning for a plugins directory with no component in it when the
/// policy names no `source` either: the server starts, with no tool.
pub fn nothing_to_serve(dir: &Path, watched: bool) -> String {
    let until = if watched {
        "until a component is added there (the directory is watched)"
    } else {
        "(--no-watch: components added later are not loaded)"
    };
    format!(
        "no plugin components (*.wasm) in {} and the policy names no `source`: there are no tools to serve {until}; {}",
        dir.display(),
        in_a_container(dir)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each way `read_dir` fails on a path, made for real: the message names
    /// the directory and what to do.
    #[test]
    fn every_unreadable_plugins_directory_says_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let cases = [
            (
                tmp.path().join("missing"),
                "does not exist",
                "--plugins DIR",
            ),
            (
                tmp.path().join("missing/nested"),
                "does not exist",
                "\"Plugins folder\" setting",
            ),
            (file.clone(), "is not a directory", "not a file"),
            (file.join("below"), "is not a directory", "not a file"),
        ];
        for (dir, what, todo) in cases {
            let error = std::fs::read_dir(&dir).unwrap_err();
            let message = unreadable(&dir, &error);
            assert!(message.contains(&dir.display().to_string()), "{message}");
            assert!(message.contains(what), "{message}");
            assert!(message.contains(todo), "{message}");
        }
        let missing = Path::new("/plugins");
        let message = unreadable(missing, &std::io::Error::from(ErrorKind::NotFound));
        assert!(
            message.starts_with("the plugins directory /plugins does not exist: ")
                && message.contains("-v ./plugins:/plugins:ro"),
            "{message}"
        );
        let denied = unreadable(missing, &std::io::Error::from(ErrorKind::PermissionDenied));
        assert!(
            denied.contains("permission denied") && denied.contains("(uid "),
            "{denied}"
        );
        let other = unreadable(missing, &std::io::Error::other("disk on fire"));
        assert!(other.ends_with("/plugins: disk on fire"), "{other}");
    }

    /// A relative path is shown as the absolute path it resolved to.
    #[test]
    fn a_relative_plugins_path_is_shown_absolute() {
        let dir = Path::new("no-such-plugins-dir-for-this-test");
        let message = unreadable(dir, &std::io::Error::from(ErrorKind::NotFound));
        let cwd = std::env::current_dir().unwrap();
        assert!(
            message.contains(&format!("{} does not exist", cwd.join(dir).display())),
            "{message}"
        );
    }

    #[test]
    fn an_empty_plugins_directory_is_named_with_how_to_fill_it() {
        let dir = Path::new("/plugins");
        let watched = nothing_to_serve(dir, true);
        assert!(
            watched.contains("no plugin components (*.wasm) in /plugins"),
            "{watched}"
        );
        assert!(watched.contains("-v ./plugins:/plugins:ro"), "{watched}");
        assert!(watched.contains("is watched"), "{watched}");
        assert!(nothing_to_serve(dir, false).contains("--no-watch"));
    }
}
