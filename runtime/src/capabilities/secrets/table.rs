//! A `secrets` table of a plugin's policy: checked without reading any
//! value, then resolved when the plugin loads (each value read from the
//! server's environment or from a private file).

use std::path::Path;

use super::*;

/// Headers the host never lets a secret replace: they frame the request.
const FRAMING: [&str; 6] = [
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "upgrade",
    "te",
];

/// Checks a `secrets` table without reading any value; keys are relative
/// to the plugin's section.
pub fn check(spec: &SecretsSpec) -> Result<(), KeyProblem> {
    for (name, s) in spec {
        let key = |k: &str| format!("secrets.{name}{k}");
        let valid_name = name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if !valid_name {
            return Err(KeyProblem::new(
                key(""),
                "a secret's name is letters, digits and `_`, not starting with a digit",
            ));
        }
        match (&s.env, &s.file) {
            (Some(_), Some(_)) => {
                return Err(KeyProblem::new(
                    key(""),
                    "set one of `env` and `file`, not both",
                ));
            }
            (None, None) => {
                return Err(KeyProblem::new(
                    key(""),
                    "say where the value comes from: `env = \"VARIABLE\"` or `file = \"path\"` (the value itself never goes in the policy file)",
                ));
            }
            (Some(var), None) if var.is_empty() || var.contains(['=', '\0']) => {
                return Err(KeyProblem::new(
                    key(".env"),
                    format!("{var:?} is not a variable name"),
                ));
            }
            _ => {}
        }
        match (&s.origin, &s.header) {
            (Some(origin), Some(header)) => {
                OriginPattern::parse(origin).map_err(|e| KeyProblem::new(key(".origin"), e))?;
                let name = http::HeaderName::from_bytes(header.as_bytes()).map_err(|_| {
                    KeyProblem::new(key(".header"), format!("{header:?} is not a header name"))
                })?;
                if FRAMING.contains(&name.as_str()) {
                    return Err(KeyProblem::new(
                        key(".header"),
                        format!("{header:?} frames the request and cannot carry a secret"),
                    ));
                }
            }
            (None, None) if s.expose => {}
            (None, None) => {
                return Err(KeyProblem::new(
                    key(""),
                    "the secret is neither injected (set `origin` and `header`) nor exposed (`expose = true`)",
                ));
            }
            _ => {
                return Err(KeyProblem::new(
                    key(""),
                    "injecting a secret needs both `origin` and `header`",
                ));
            }
        }
        if let Some(template) = &s.value {
            if s.header.is_none() {
                return Err(KeyProblem::new(
                    key(".value"),
                    "`value` only applies with `header`",
                ));
            }
            if !template.contains(PLACEHOLDER) {
                return Err(KeyProblem::new(
                    key(".value"),
                    format!("{template:?} does not contain {PLACEHOLDER}, where the secret goes"),
                ));
            }
        }
    }
    Ok(())
}

/// Reads every secret's value (the spec was checked with [`check`]); `base`
/// is the policy file's directory, for relative file paths.
pub fn resolve(spec: &SecretsSpec, base: &Path) -> Result<SecretsPolicy, KeyProblem> {
    let mut secrets = Vec::new();
    for (name, s) in spec {
        let key = format!("secrets.{name}");
        let problem = |k: &str, text: String| KeyProblem::new(format!("{key}{k}"), text);
        let (source, value) = match (&s.env, &s.file) {
            (Some(var), _) => {
                let value = std::env::var(var).map_err(|_| {
                    problem("", format!("the environment variable {var} is not set (or not valid UTF-8) in the server's environment"))
                })?;
                (SecretSource::Env(var.clone()), value)
            }
            (None, Some(file)) => {
                let path = base.join(file);
                let value = read_private(&path).map_err(|e| problem(".file", e.to_string()))?;
                (SecretSource::File(path), value)
            }
            (None, None) => return Err(problem("", "no source (checked at parse)".into())),
        };
        if value.is_empty() {
            return Err(problem("", format!("the {source} is empty")));
        }
        let inject = match (&s.origin, &s.header) {
            (Some(origin), Some(header)) => Some(Injection {
                origin: OriginPattern::parse(origin)
                    .map_err(|e| problem(".origin", e.to_string()))?,
                header: http::HeaderName::from_bytes(header.as_bytes())
                    .map_err(|_| problem(".header", "not a header name".into()))?,
                template: s.value.clone().unwrap_or_else(|| PLACEHOLDER.to_string()),
            }),
            _ => None,
        };
        let secret = Secret {
            name: name.clone(),
            source,
            inject,
            expose: s.expose,
            value: SecretValue(value.into()),
        };
        if let Some(injection) = &secret.inject
            && secret.header_value(injection).is_none()
        {
            return Err(problem(
                "",
                format!(
                    "the {} holds characters a header value cannot carry (such as a line break)",
                    secret.source
                ),
            ));
        }
        secrets.push(secret);
    }
    Ok(SecretsPolicy::new(secrets, false))
}

/// Why a secret's file is not read.
#[derive(Debug, thiserror::Error)]
enum SecretFileError {
    /// It cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Others (or the group, for a file root does not own) may read it.
    #[cfg_attr(not(unix), allow(dead_code))]
    #[error(
        "{path} has mode {mode:04o}; a secret's file must be readable by its owner only, or by its owner and group when root owns it (run `chmod 600 {path}`)"
    )]
    Mode { path: PathBuf, mode: u32 },
    /// It is a directory or another kind of file.
    #[error("{0} is not a file")]
    NotAFile(PathBuf),
}

/// The file's text without its final line break, if no one but its owner
/// may read it, or, for a file owned by root, its owner and group.
///
/// The second case is the rule PostgreSQL applies to its key file, and the
/// way Kubernetes mounts a Secret volume for a non-root container: the files
/// belong to root, their group is the pod's `fsGroup`, and their mode is
/// `0440`. Others may never read, and the group may never write.
fn read_private(path: &Path) -> Result<String, SecretFileError> {
    let read = |source| SecretFileError::Read {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = meta.permissions().mode() & 0o777;
        let allowed = if meta.uid() == 0 { 0o740 } else { 0o700 };
        if mode & !allowed != 0 {
            return Err(SecretFileError::Mode {
                path: path.to_owned(),
                mode,
            });
        }
    }
    if !meta.is_file() {
        return Err(SecretFileError::NotAFile(path.to_owned()));
    }
    let text = std::fs::read_to_string(path).map_err(read)?;
    Ok(text
        .strip_suffix('\n')
        .map(|t| t.strip_suffix('\r').unwrap_or(t))
        .unwrap_or(&text)
        .to_string())
}
