//! Which plugin keeps a tool name two or more plugins export, under the
//! rule the policies choose ([`crate::policy::ToolClash`]).

use std::collections::HashMap;
use std::sync::Arc;

/// Which plugin keeps each clashing name under [`crate::policy::ToolClash::Prefix`] and
/// [`crate::policy::ToolClash::Refuse`]: the one that served it under its plain name in
/// the catalog before this one, when it still exports it, else the first
/// exporter by file name (at the first load, or when the previous keeper
/// is gone).
pub(crate) fn keepers<'a>(
    clashing: impl Iterator<Item = (&'a str, &'a [Arc<str>])>,
    kept_before: impl Fn(&str) -> Option<Arc<str>>,
) -> HashMap<&'a str, Arc<str>> {
    clashing
        .map(|(tool, exporters)| {
            let keeper = kept_before(tool)
                .filter(|before| exporters.contains(before))
                .unwrap_or_else(|| exporters[0].clone());
            (tool, keeper)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_that_kept_a_name_keeps_it_else_the_first_file() {
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let both = [a.clone(), b.clone()];
        let first = keepers([("echo", &both[..])].into_iter(), |_| None);
        assert_eq!(first["echo"], a);
        let held = keepers([("echo", &both[..])].into_iter(), |_| Some(b.clone()));
        assert_eq!(held["echo"], b);
        // A keeper that no longer exports the name does not keep it.
        let gone = keepers([("echo", &both[..])].into_iter(), |_| Some("c".into()));
        assert_eq!(gone["echo"], a);
    }
}
