//! Pagination: the part of a text from one character index, and the note
//! that tells the model where to go on.

/// Characters `[start, start + max)` of `text`, followed by a note naming
/// the next `start_index` when the text goes on past them.
pub fn slice(text: &str, start: usize, max: usize) -> String {
    let total = text.chars().count();
    if start >= total {
        return format!("<error>No more content: the text is {total} characters long.</error>");
    }
    let begin = byte_index(text, start);
    let rest = &text[begin..];
    let len = byte_index(rest, max);
    let mut out = rest[..len].to_string();
    let next = start + max;
    if next < total {
        out.push_str(&format!(
            "\n\n<error>Content truncated ({total} characters in all). Call fetch with \
             start_index={next} to get more.</error>"
        ));
    }
    out
}

/// The byte offset of character `n` of `text` (its length if shorter).
fn byte_index(text: &str, n: usize) -> usize {
    text.char_indices().nth(n).map_or(text.len(), |(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_comes_whole_without_a_note() {
        assert_eq!(slice("héllo", 0, 10), "héllo");
    }

    #[test]
    fn a_long_text_is_cut_in_characters_and_names_the_next_start() {
        let out = slice("ééééé", 1, 2);
        assert!(out.starts_with("éé\n\n"), "{out}");
        assert!(out.contains("start_index=3"), "{out}");
        assert_eq!(slice("ééééé", 3, 2), "éé");
    }

    #[test]
    fn a_start_past_the_end_says_there_is_no_more() {
        assert!(slice("abc", 3, 5).contains("No more content"));
        assert!(slice("", 0, 5).contains("No more content"));
    }
}
