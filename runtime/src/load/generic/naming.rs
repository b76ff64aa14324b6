//! The tool name each exported function of a generic component gets: its
//! own name, qualified by its interface only when two functions of the
//! component share it (`docs/generic-components.md#tool-names`).

use std::collections::HashMap;

use crate::definitions::schema::plugin_prefix as plain;

/// Where a function is exported: the world itself, or an interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The export name of its interface (`local:time/clock@0.1.0`, or a
    /// plain name such as `clock` for an interface the world names
    /// itself); `None` for a function the world exports directly.
    pub interface: Option<String>,
    /// The function's name (`now`, or `[static]timer.start`).
    pub function: String,
}

impl Exported {
    /// The function as WIT tools name it: `now`, or `local:time/clock@0.1.0#now`.
    pub fn wit_name(&self) -> String {
        match &self.interface {
            Some(i) => format!("{i}#{}", self.function),
            None => self.function.clone(),
        }
    }

    /// The function's own name, without a resource's `[static]` marker
    /// (`timer.start`).
    fn base(&self) -> &str {
        self.function
            .strip_prefix("[static]")
            .unwrap_or(&self.function)
    }

    /// The interface's short name: `clock` for `local:time/clock@0.1.0`.
    fn short_interface(&self) -> Option<&str> {
        let i = self.interface.as_deref()?;
        let i = i.split('@').next().unwrap_or(i);
        Some(i.rsplit('/').next().unwrap_or(i))
    }
}

/// The tool names of `functions`, in their order. The rule, applied to the
/// whole component at once:
/// 1. a function is named by its own name (`now`);
/// 2. when several share that name, each of them that an interface exports
///    is named `INTERFACE.NAME` with the interface's short name
///    (`clock.now`), and a function of the world itself keeps its name;
/// 3. when those still clash (the same interface name in two packages or
///    versions), `EXPORT.NAME`, the interface's whole export name with
///    every character outside `A-Z a-z 0-9 _ -` as `_`
///    (`local_time_clock_0_1_0.now`);
/// 4. any name still taken gets `_2`, `_3`... in export order.
pub fn tool_names(functions: &[Exported]) -> Vec<String> {
    let count = |names: &[String]| {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for n in names {
            *counts.entry(n.as_str()).or_default() += 1;
        }
        names
            .iter()
            .map(|n| counts[n.as_str()] > 1)
            .collect::<Vec<_>>()
    };
    let mut names: Vec<String> = functions.iter().map(|f| f.base().to_string()).collect();
    let clash = count(&names);
    for ((name, f), clash) in names.iter_mut().zip(functions).zip(clash) {
        if let (true, Some(short)) = (clash, f.short_interface()) {
            *name = format!("{}.{}", plain(short), f.base());
        }
    }
    let clash = count(&names);
    for ((name, f), clash) in names.iter_mut().zip(functions).zip(clash) {
        if let (true, Some(interface)) = (clash, &f.interface) {
            *name = format!("{}.{}", plain(interface), f.base());
        }
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for name in &mut names {
        let n = seen.entry(name.clone()).or_default();
        *n += 1;
        if *n > 1 {
            let mut k = *n;
            while seen.contains_key(&format!("{name}_{k}")) {
                k += 1;
            }
            *name = format!("{name}_{k}");
            seen.insert(name.clone(), 1);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world(f: &str) -> Exported {
        Exported {
            interface: None,
            function: f.into(),
        }
    }

    fn of(i: &str, f: &str) -> Exported {
        Exported {
            interface: Some(i.into()),
            function: f.into(),
        }
    }

    #[test]
    fn names_are_qualified_only_as_far_as_a_clash_needs() {
        let functions = [
            world("fetch"),
            of("local:time/clock@0.1.0", "now"),
            of("local:kv/store@0.2.0", "get"),
            of("local:cache/store@0.2.0", "get"),
            of("local:kv/other", "get"),
            of("local:kv/other", "[static]timer.start"),
            of("wall", "now"),
            world("put"),
            of("local:kv/store@0.2.0", "put"),
        ];
        assert_eq!(
            tool_names(&functions),
            [
                "fetch",
                "clock.now",
                "local_kv_store_0_2_0.get",
                "local_cache_store_0_2_0.get",
                "other.get",
                "timer.start",
                "wall.now",
                "put",
                "store.put",
            ]
        );
    }

    #[test]
    fn every_name_is_unique_and_valid() {
        let functions: Vec<_> = ["a:b/c", "a:b/c@1.0.0", "a:x/c", "c", "a:b/c.d"]
            .iter()
            .flat_map(|i| [of(i, "f"), of(i, "g")])
            .chain([world("f")])
            .collect();
        let names = tool_names(&functions);
        let unique: std::collections::HashSet<_> = names.iter().collect();
        assert_eq!(unique.len(), names.len(), "{names:?}");
        for n in &names {
            crate::definitions::schema::check_tool_name(n).unwrap();
        }
        assert_eq!(names.last().unwrap(), "f");
    }
}
