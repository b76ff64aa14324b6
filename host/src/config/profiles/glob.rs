//! The name patterns of a profile: `*` stands for any run of characters
//! (none included, `.` and `/` included), `?` for any one character, and
//! every other character for itself. Matching is linear in the pattern
//! times the name at worst, never exponential.

/// A checked pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Glob(Vec<char>);

impl Glob {
    /// `pattern` as a glob; `None` if it is empty.
    pub fn new(pattern: &str) -> Option<Glob> {
        (!pattern.is_empty()).then(|| Glob(pattern.chars().collect()))
    }

    /// Whether `name` matches the whole pattern.
    pub fn matches(&self, name: &str) -> bool {
        let (pattern, name): (&[char], Vec<char>) = (&self.0, name.chars().collect());
        let (mut p, mut n) = (0, 0);
        // The last `*` seen, and the name position it has swallowed up to.
        let mut star: Option<(usize, usize)> = None;
        while n < name.len() {
            match pattern.get(p) {
                Some('*') => {
                    star = Some((p, n));
                    p += 1;
                }
                Some(&c) if c == '?' || c == name[n] => {
                    p += 1;
                    n += 1;
                }
                _ => match star {
                    // Let the last `*` take one more character and retry.
                    Some((sp, sn)) => {
                        star = Some((sp, sn + 1));
                        p = sp + 1;
                        n = sn + 1;
                    }
                    None => return false,
                },
            }
        }
        pattern[p..].iter().all(|&c| c == '*')
    }
}

impl std::fmt::Display for Glob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|c| write!(f, "{c}"))
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn m(pattern: &str, name: &str) -> bool {
        Glob::new(pattern).unwrap().matches(name)
    }

    #[test]
    fn stars_and_question_marks_match_runs_and_single_characters() {
        assert!(m("word_count", "word_count"));
        assert!(!m("word_count", "word_counts"));
        assert!(m("word_*", "word_count"));
        assert!(m("word_*", "word_"));
        assert!(!m("word_*", "char_count"));
        assert!(m("*count", "word_count"));
        assert!(m("*_*", "a_b_c"));
        assert!(m("text.*", "text.upper"));
        assert!(m("file:///docs/*", "file:///docs/a/b.md"));
        assert!(m("?pper", "upper"));
        assert!(!m("?pper", "pper"));
        assert!(m("*", ""));
        assert!(!m("a*b", "a"));
        assert!(m("a*b*c", "aXbYc"));
        assert!(!m("a*b*c", "aXbY"));
    }

    #[test]
    fn an_empty_pattern_is_refused_and_a_long_one_is_quick() {
        assert!(Glob::new("").is_none());
        let name = "a".repeat(10_000);
        let pattern = format!("{}b", "*a".repeat(50));
        assert!(!m(&pattern, &name));
    }
}
