//! Checking fetched bytes while they stream: their count against the size
//! the manifest declares (refused on the first byte past it, and when the
//! stream ends short of it) and against the plugin's size bound, and their
//! SHA-256 against the digest they were asked for by. Nothing that fails
//! is passed on: a chunk that would overrun a bound is refused before any
//! of it is written.

use sha2::{Digest as _, Sha256};

use super::limits::Bound;
use crate::runtime::Sha256Digest;

/// Why streamed bytes were refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The manifest declares more bytes than the bound allows.
    #[error("the manifest declares {declared} bytes, more than the {max} bytes `{key}` allows")]
    DeclaredTooLarge {
        /// The declared size.
        declared: u64,
        /// The bound.
        max: u64,
        /// The key that sets it.
        key: String,
    },
    /// The manifest declares an impossible size.
    #[error("the manifest declares an invalid size ({0})")]
    DeclaredInvalid(i64),
    /// More bytes came than were declared.
    #[error("the registry sent more than the {declared} bytes the manifest declares")]
    Longer {
        /// The declared size.
        declared: u64,
    },
    /// More bytes came than the bound allows (no size was declared).
    #[error("larger than the {max} bytes `{key}` allows")]
    TooLarge {
        /// The bound.
        max: u64,
        /// The key that sets it.
        key: String,
    },
    /// The stream ended before the declared size.
    #[error("the registry sent {got} of the {declared} bytes the manifest declares")]
    Shorter {
        /// The declared size.
        declared: u64,
        /// What came.
        got: u64,
    },
    /// The bytes do not have the digest asked for.
    #[error("digest mismatch: expected sha256:{expected}, got sha256:{actual}")]
    Digest {
        /// The digest asked for.
        expected: Sha256Digest,
        /// The digest of what came.
        actual: Sha256Digest,
    },
}

/// The running check of one stream.
#[derive(Debug)]
pub struct StreamCheck {
    expected: Sha256Digest,
    declared: Option<u64>,
    max: Bound<u64>,
    seen: u64,
    hasher: Sha256,
}

impl StreamCheck {
    /// A check for bytes of digest `expected`, of `declared` size if the
    /// manifest says (else any size up to `max`). Refuses at once a
    /// declared size above `max` or below zero.
    pub fn new(
        expected: Sha256Digest,
        declared: Option<i64>,
        max: &Bound<u64>,
    ) -> Result<Self, CheckError> {
        let declared = match declared {
            None => None,
            Some(n) => Some(u64::try_from(n).map_err(|_| CheckError::DeclaredInvalid(n))?),
        };
        if let Some(declared) = declared
            && declared > max.value
        {
            return Err(CheckError::DeclaredTooLarge {
                declared,
                max: max.value,
                key: max.key.clone(),
            });
        }
        Ok(StreamCheck {
            expected,
            declared,
            max: max.clone(),
            seen: 0,
            hasher: Sha256::new(),
        })
    }

    /// The most bytes that may come.
    fn limit(&self) -> u64 {
        self.declared.unwrap_or(self.max.value)
    }

    fn over(&self) -> CheckError {
        match self.declared {
            Some(declared) => CheckError::Longer { declared },
            None => CheckError::TooLarge {
                max: self.max.value,
                key: self.max.key.clone(),
            },
        }
    }

    /// Checks an announced length (`Content-Length`) before any byte.
    pub fn announce(&self, length: Option<u64>) -> Result<(), CheckError> {
        match length {
            Some(n) if n > self.limit() => Err(self.over()),
            _ => Ok(()),
        }
    }

    /// Takes the next chunk; refuses it whole if it would pass the limit.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), CheckError> {
        let after = self.seen.saturating_add(chunk.len() as u64);
        if after > self.limit() {
            return Err(self.over());
        }
        self.seen = after;
        self.hasher.update(chunk);
        Ok(())
    }

    /// The stream ended: checks its length and digest.
    pub fn finish(self) -> Result<(), CheckError> {
        if let Some(declared) = self.declared
            && self.seen != declared
        {
            return Err(CheckError::Shorter {
                declared,
                got: self.seen,
            });
        }
        let actual = Sha256Digest(self.hasher.finalize().into());
        if actual != self.expected {
            return Err(CheckError::Digest {
                expected: self.expected,
                actual,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `bytes` in chunks of `chunk`, "writing" what is accepted.
    fn stream(
        bytes: &[u8],
        expected: Sha256Digest,
        declared: Option<i64>,
        max: u64,
        chunk: usize,
    ) -> (Result<(), CheckError>, usize) {
        let max = Bound::new(max, "plugins.x.max_plugin_size");
        let mut check = match StreamCheck::new(expected, declared, &max) {
            Ok(c) => c,
            Err(e) => return (Err(e), 0),
        };
        if let Err(e) = check.announce(None) {
            return (Err(e), 0);
        }
        let mut written = 0;
        for piece in bytes.chunks(chunk.max(1)) {
            if let Err(e) = check.feed(piece) {
                return (Err(e), written);
            }
            written += piece.len();
        }
        (check.finish(), written)
    }

    /// The class: every actual length against every declared length and
    /// bound, in several chunkings. Accepted exactly when the length is the
    /// declared one (or, undeclared, within the bound) and the digest
    /// matches; never more than the limit is written.
    #[test]
    fn sizes_and_digests_are_checked_while_streaming_as_a_class() {
        let body: Vec<u8> = (0..4096u32).map(|i| (i * 31 % 251) as u8).collect();
        let mut cases = 0;
        for actual in [0usize, 1, 2, 100, 1000, 4095, 4096] {
            let bytes = &body[..actual];
            let digest = Sha256Digest::of(bytes);
            let declared_set: Vec<Option<i64>> = [
                None,
                Some(actual as i64),
                Some(actual as i64 - 1),
                Some(actual as i64 + 1),
                Some(0),
                Some(actual as i64 / 2),
                Some(actual as i64 * 2 + 7),
                Some(-1),
            ]
            .into_iter()
            .collect();
            for declared in declared_set {
                for max in [0u64, 1, actual as u64, actual as u64 + 1, 1 << 20] {
                    for chunk in [1usize, 7, 512, 8192] {
                        for right_digest in [true, false] {
                            cases += 1;
                            let expected = if right_digest {
                                digest
                            } else {
                                Sha256Digest::of(b"something else")
                            };
                            let (result, written) = stream(bytes, expected, declared, max, chunk);
                            let limit = match declared {
                                Some(d) if d >= 0 => d as u64,
                                Some(_) => 0,
                                None => max,
                            };
                            assert!(written as u64 <= limit, "wrote past the limit");
                            let fits = match declared {
                                Some(d) => d >= 0 && d as u64 <= max && d as u64 == actual as u64,
                                None => actual as u64 <= max,
                            };
                            let ok = fits && right_digest;
                            assert_eq!(
                                result.is_ok(),
                                ok,
                                "actual {actual} declared {declared:?} max {max} chunk {chunk} digest {right_digest}: {result:?}"
                            );
                            if let Err(e) = &result {
                                let text = e.to_string();
                                match e {
                                    CheckError::DeclaredTooLarge { .. }
                                    | CheckError::TooLarge { .. } => {
                                        assert!(
                                            text.contains("`plugins.x.max_plugin_size`"),
                                            "{text}"
                                        )
                                    }
                                    CheckError::Longer { declared }
                                    | CheckError::Shorter { declared, .. } => {
                                        assert!(text.contains(&declared.to_string()), "{text}")
                                    }
                                    CheckError::Digest { .. } => {
                                        assert!(text.contains("digest mismatch"))
                                    }
                                    CheckError::DeclaredInvalid(_) => {
                                        assert!(text.contains("invalid size"))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(cases > 2000, "{cases}");
    }

    #[test]
    fn an_announced_length_past_the_limit_is_refused_before_any_byte() {
        let max = Bound::new(10, "k");
        let digest = Sha256Digest::of(b"");
        let check = StreamCheck::new(digest, Some(5), &max).unwrap();
        assert_eq!(check.announce(Some(5)), Ok(()));
        assert_eq!(
            check.announce(Some(6)),
            Err(CheckError::Longer { declared: 5 })
        );
        let check = StreamCheck::new(digest, None, &max).unwrap();
        assert!(matches!(
            check.announce(Some(11)),
            Err(CheckError::TooLarge { max: 10, .. })
        ));
    }
}
