//! Default values for `#[serde(default = "...")]` fields.
//!
//! Serde takes a field's default from a function named in a string. These
//! functions return the constant given as their generic argument, so a
//! plugin needs no function of its own per default value; `schemars` calls
//! the same function to put the value in the schema's `default`.
//!
//! ```
//! use mcp_wasm_sdk::prelude::*;
//!
//! /// Arguments of `repeat`.
//! #[derive(Deserialize, JsonSchema)]
//! struct RepeatArgs {
//!     /// The text to repeat.
//!     text: String,
//!     /// How many times (default 3).
//!     #[serde(default = "defaults::u32::<3>")]
//!     times: u32,
//!     /// Put a newline between the copies (default true).
//!     #[serde(default = "defaults::bool::<true>")]
//!     lines: bool,
//! }
//!
//! let router = Router::new().tool(ToolDef::new("repeat", "Repeats a text."), |args: RepeatArgs| {
//!     let sep = if args.lines { "\n" } else { "" };
//!     Ok(vec![args.text.as_str(); args.times as usize].join(sep))
//! });
//! let out = router.call("repeat", r#"{"text":"ab"}"#).unwrap();
//! assert_eq!(out.content()[0].as_text(), Some("ab\nab\nab"));
//! let schema: serde_json::Value =
//!     serde_json::from_str(router.list()[0].input_schema().unwrap()).unwrap();
//! assert_eq!(schema["properties"]["times"]["default"], 3);
//! assert_eq!(schema["properties"]["lines"]["default"], true);
//! ```

/// Defines `pub const fn $ty<const N: $ty>() -> $ty`, returning `N`.
macro_rules! constant {
    ($($ty:ident),*) => {$(
        #[doc = concat!("Returns `N`: `#[serde(default = \"defaults::", stringify!($ty), "::<N>\")]`.")]
        pub const fn $ty<const N: $ty>() -> $ty {
            N
        }
    )*};
}

constant!(
    bool, char, u8, u16, u32, u64, usize, i8, i16, i32, i64, isize
);

#[cfg(test)]
mod tests {
    #[test]
    fn each_returns_its_argument() {
        assert!(super::bool::<true>());
        assert!(!super::bool::<false>());
        assert_eq!(super::u8::<2>(), 2);
        assert_eq!(super::u32::<100>(), 100);
        assert_eq!(super::usize::<5000>(), 5000);
        assert_eq!(super::i64::<{ -1 }>(), -1);
        assert_eq!(super::char::<'x'>(), 'x');
    }
}
