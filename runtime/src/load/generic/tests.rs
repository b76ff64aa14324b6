//! Generic components built here from WIT text and a hand-written core
//! module (with `wit-component`, as any toolchain does), loaded and called
//! through the runtime: naming, left-out functions, errors, traps, docs, and
//! the property test that echoes values of generated WIT types through a
//! guest.
//
// Wrapped in a `#[cfg(test)]` module of its own so that the runtime's
// layering check (tests/all/layering.rs), which leaves test items out,
// leaves out the runtime-wide imports these tests need.

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod cases {

    use std::fmt::Write as _;
    use std::path::PathBuf;
    use std::sync::Arc;

    use serde_json::{Map, Value, json};

    use super::super::schema;
    use super::super::types::WitType;
    use crate::{
        Caller, DefaultPolicies, EngineSettings, Limits, LoadReport, NoEvents, Runtime, ToolOutput,
    };

    /// A bump allocator, the memory and the functions in `funcs` (WAT); its
    /// lines that start with `(import` go first, as WAT wants.
    fn core_module(funcs: &str) -> String {
        let (imports, funcs): (Vec<&str>, Vec<&str>) = funcs
            .lines()
            .partition(|l| l.trim_start().starts_with("(import"));
        let (imports, funcs) = (imports.join("\n"), funcs.join("\n"));
        format!(
            r#"(module
      {imports}
      (memory (export "memory") 1)
      (global $heap (mut i32) (i32.const 1024))
      (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32)
        (local $p i32)
        (local.set $p
          (i32.and
            (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1)))
            (i32.xor (i32.sub (local.get 2) (i32.const 1)) (i32.const -1))))
        (global.set $heap (i32.add (local.get $p) (local.get 3)))
        (block $done
          (loop $grow
            (br_if $done
              (i32.le_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536))))
            (if (i32.eq (memory.grow (i32.const 1)) (i32.const -1)) (then unreachable))
            (br $grow)))
        (local.get $p))
      {funcs}
    )"#
        )
    }

    /// A component of the world `w` in the WIT package `wit` (which must
    /// declare `package test:generic;`), its functions implemented by `funcs`;
    /// with the package's docs in a top-level `package-docs` section when
    /// `docs`, as `wit-docs-inject` adds them.
    pub(crate) fn component(wit: &str, funcs: &str, docs: bool) -> Vec<u8> {
        let mut bytes = test_artifacts::component_of_wit(wit, "w", &core_module(funcs));
        if docs {
            let mut resolve = wit_parser::Resolve::default();
            let package = resolve.push_str("test.wit", wit).unwrap();
            let data = wit_parser::PackageMetadata::extract(&resolve, package)
                .encode()
                .unwrap();
            let mut payload = Vec::new();
            leb(&mut payload, super::super::docs::SECTION.len());
            payload.extend_from_slice(super::super::docs::SECTION.as_bytes());
            payload.extend_from_slice(&data);
            bytes.push(0);
            leb(&mut bytes, payload.len());
            bytes.extend_from_slice(&payload);
        }
        bytes
    }

    fn leb(out: &mut Vec<u8>, mut n: usize) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                return;
            }
            out.push(byte | 0x80);
        }
    }

    /// A runtime with the default policy (or `limits`) that has loaded `files`
    /// (name, bytes) from a temporary directory.
    async fn serve(
        files: &[(&str, Vec<u8>)],
        limits: Limits,
    ) -> (Runtime, LoadReport, tempfile::TempDir, Vec<PathBuf>) {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (name, bytes) in files {
            let path = dir.path().join(format!("{name}.wasm"));
            std::fs::write(&path, bytes).unwrap();
            paths.push(path);
        }
        let settings = EngineSettings::default();
        let runtime = Runtime::new(&settings, Arc::new(DefaultPolicies { limits })).unwrap();
        let report = runtime.load_files(&paths).await;
        (runtime, report, dir, paths)
    }

    async fn call(runtime: &Runtime, tool: &str, args: Value) -> Result<ToolOutput, String> {
        let Value::Object(args) = args else {
            panic!("arguments must be an object")
        };
        runtime
            .call(tool, Some(args), &Caller::new(), Arc::new(NoEvents))
            .await
            .result
            .map_err(|e| e.to_string())
    }

    const TOOLS_WIT: &str = r#"
    package test:generic;

    interface calc {
        /// Adds two numbers.
        ///
        /// - a: the first addend
        /// - b: the second addend
        add: func(a: s32, b: s32) -> s32;
    }

    interface other {
        add: func(a: s32, b: s32) -> s32;
        resource thing;
        make: func() -> thing;
    }

    world w {
        export calc;
        export other;
        /// Fails with the message it is given.
        export fail: func(msg: string) -> result<u32, string>;
        export boom: func();
        export spin: func();
    }
    "#;

    const TOOLS_CORE: &str = r#"
      (func (export "test:generic/calc#add") (param i32 i32) (result i32)
        (i32.add (local.get 0) (local.get 1)))
      (func (export "test:generic/other#add") (param i32 i32) (result i32)
        (i32.sub (local.get 0) (local.get 1)))
      (func (export "test:generic/other#make") (result i32) unreachable)
      (func (export "fail") (param i32 i32) (result i32)
        (i32.store8 (i32.const 16) (i32.const 1))
        (i32.store (i32.const 20) (local.get 0))
        (i32.store (i32.const 24) (local.get 1))
        (i32.const 16))
      (func (export "boom") unreachable)
      (func (export "spin") (loop $l (br $l)))
    "#;

    #[tokio::test]
    async fn a_plain_component_is_served_one_tool_per_function() {
        let (runtime, report, _dir, _) = serve(
            &[("tools", component(TOOLS_WIT, TOOLS_CORE, true))],
            Limits::default(),
        )
        .await;
        assert!(report.failed.is_empty(), "{:?}", report.failed);
        let catalog = runtime.catalog();
        let plugin = &catalog.plugins()[0];
        let summary = plugin.generic.as_ref().unwrap();
        let names: Vec<_> = summary.tools.iter().map(|t| t.tool.as_str()).collect();
        // In the component's export order.
        assert_eq!(names, ["fail", "boom", "spin", "calc.add", "other.add"]);
        assert_eq!(summary.tools[3].signature, "func(a: s32, b: s32) -> s32");
        assert_eq!(summary.tools[3].function, "test:generic/calc#add");
        assert_eq!(
            summary.tools[0].signature,
            "func(msg: string) -> result<u32, string>"
        );
        assert_eq!(summary.left_out.len(), 1, "{:?}", summary.left_out);
        assert_eq!(
            summary.left_out[0].to_string(),
            "function `test:generic/other#make` is not served: it uses a resource handle, which JSON cannot carry"
        );

        let add = catalog
            .tools()
            .iter()
            .find(|t| t.name == "calc.add")
            .unwrap();
        assert!(
            add.description.starts_with("Adds two numbers."),
            "{}",
            add.description
        );
        assert_eq!(
            add.input_schema["properties"]["a"]["description"],
            json!("the first addend")
        );
        let other = catalog
            .tools()
            .iter()
            .find(|t| t.name == "other.add")
            .unwrap();
        assert_eq!(
            other.description,
            "The WIT function `test:generic/other#add`: `func(a: s32, b: s32) -> s32`."
        );

        let out = call(&runtime, "calc.add", json!({"a": 2, "b": 40}))
            .await
            .unwrap();
        assert_eq!(out.structured, Some(json!({"result": 42})));
        assert!(!out.is_error);
        let out = call(&runtime, "other.add", json!({"a": 2, "b": 40}))
            .await
            .unwrap();
        assert_eq!(out.structured, Some(json!({"result": -38})));

        // The `err` of a result: an error result, as text and structured.
        let out = call(&runtime, "fail", json!({"msg": "it broke"}))
            .await
            .unwrap();
        assert!(out.is_error);
        assert_eq!(out.structured, Some(json!({"error": "it broke"})));
        assert_eq!(crate::Content::text("it broke"), out.content[0].clone());

        // Arguments are checked against the derived schema before the guest runs.
        let e = call(&runtime, "calc.add", json!({"a": 2, "b": 1u64 << 40}))
            .await
            .unwrap_err();
        assert!(e.contains("b"), "{e}");
        let e = call(&runtime, "calc.add", json!({"a": 2}))
            .await
            .unwrap_err();
        assert!(e.contains("\"b\""), "{e}");

        // A trap is an error result naming the trap; the server keeps serving.
        let e = call(&runtime, "boom", json!({})).await.unwrap_err();
        assert!(e.contains("unreachable"), "{e}");
        let out = call(&runtime, "calc.add", json!({"a": 1, "b": 1}))
            .await
            .unwrap();
        assert_eq!(out.structured, Some(json!({"result": 2})));
    }

    #[tokio::test]
    async fn a_loop_runs_out_of_fuel_or_time_like_any_plugins() {
        let limits = Limits {
            fuel: 1_000_000,
            ..Limits::default()
        };
        let (runtime, _, _dir, _) = serve(
            &[("tools", component(TOOLS_WIT, TOOLS_CORE, false))],
            limits,
        )
        .await;
        let e = call(&runtime, "spin", json!({})).await.unwrap_err();
        assert!(e.contains("fuel"), "{e}");
    }

    #[tokio::test]
    async fn too_many_functions_or_too_large_a_schema_are_refused_by_the_load_limits() {
        let mut wit = String::from("package test:generic;\nworld w {\n");
        let mut core = String::new();
        for i in 0..20 {
            writeln!(
                wit,
                "export f{i}: func(a: list<list<list<tuple<u8, string, bool>>>>);"
            )
            .unwrap();
            writeln!(core, r#"(func (export "f{i}") (param i32 i32))"#).unwrap();
        }
        wit.push_str("export small: func();\n}\n");
        core.push_str(r#"(func (export "small"))"#);
        let bytes = component(&wit, &core, false);

        let few = Limits {
            max_tools: 10,
            ..Limits::default()
        };
        let (_, report, _dir, _) = serve(&[("many", bytes.clone())], few).await;
        let e = report.failed[0].to_string();
        assert!(e.contains("21 tools") && e.contains("max_tools"), "{e}");

        let small = Limits {
            max_schema_bytes: 200,
            ..Limits::default()
        };
        let (runtime, report, _dir, _) = serve(&[("many", bytes)], small).await;
        assert!(report.failed.is_empty(), "{:?}", report.failed);
        let catalog = runtime.catalog();
        let summary = catalog.plugins()[0].generic.clone().unwrap();
        assert_eq!(summary.tools.len(), 1);
        assert_eq!(summary.left_out.len(), 20);
        assert!(
            summary.left_out[0].reason.contains("max_schema_size"),
            "{}",
            summary.left_out[0]
        );
    }

    #[tokio::test]
    async fn a_component_with_nothing_to_serve_says_why() {
        let wit = "package test:generic;\ninterface i { resource r; make: func() -> r; }\nworld w { export i; }";
        let core = r#"(func (export "test:generic/i#make") (result i32) unreachable)"#;
        let (_, report, _dir, _) =
            serve(&[("none", component(wit, core, false))], Limits::default()).await;
        let e = report.failed[0].to_string();
        assert!(
            e.contains("none of its 1 exported functions can be served"),
            "{e}"
        );
    }

    /// A toolchain's own exports (componentize-py's `exports#init`) are left
    /// out without a warning; a function of the same name elsewhere is not.
    #[tokio::test]
    async fn a_toolchains_own_exports_are_left_out_as_such() {
        let wit = "package test:generic;
            world w {
                export exports: interface { init: func(app-name: string) -> result<_, string>; }
                export mine: interface { init: func() -> u32; }
                export init: func() -> u32;
            }";
        let core = r#"
            (func (export "exports#init") (param i32 i32) (result i32) unreachable)
            (func (export "mine#init") (result i32) i32.const 7)
            (func (export "init") (result i32) i32.const 8)
        "#;
        let (runtime, report, _dir, _) =
            serve(&[("py", component(wit, core, false))], Limits::default()).await;
        assert!(report.failed.is_empty(), "{:?}", report.failed);
        let catalog = runtime.catalog();
        let summary = catalog.plugins()[0].generic.as_ref().unwrap();
        let names: Vec<_> = summary.tools.iter().map(|t| t.tool.as_str()).collect();
        assert_eq!(names, ["init", "mine.init"]);
        assert_eq!(summary.left_out.len(), 1, "{:?}", summary.left_out);
        assert!(summary.left_out[0].internal);
        assert_eq!(
            summary.left_out[0].to_string(),
            "function `exports#init` is not served: it is componentize-py's build-time initializer (it ran when the component was built), not a function of the component's author"
        );
    }

    /// A component importing an interface the host does not provide at all
    /// is refused naming it, not with wasmtime's "wrong type".
    #[tokio::test]
    async fn an_import_the_host_does_not_provide_is_named() {
        let wit = "package test:generic;
            interface kv { ping: func() -> u32; }
            world w { import kv; export hello: func() -> u32; }";
        let core = r#"
            (import "test:generic/kv" "ping" (func $ping (result i32)))
            (func (export "hello") (result i32) call $ping)
        "#;
        let (_, report, _dir, _) =
            serve(&[("kv", component(wit, core, false))], Limits::default()).await;
        let e = report.failed[0].to_string();
        assert!(
            e.contains("it imports `test:generic/kv`, which this host does not provide")
                && !e.contains("wrong type"),
            "{e}"
        );
    }

    /// What the async engine does not take, in wasmtime's words as a load
    /// report gives them: the stackful async ABI (an export lifted `async`
    /// without a callback), and WASI 0.3's imports (this host links WASI
    /// 0.2's); a callback-form async export beside them loads.
    #[tokio::test]
    async fn the_stackful_async_abi_and_wasi_0_3_imports_are_refused_in_wasmtimes_words() {
        let lifted = |options: &str| {
            wat::parse_str(format!(
                r#"(component
                    (core module $m
                        (import "" "task.return" (func $ret (param i32)))
                        (func (export "f") (result i32) (call $ret (i32.const 7)) (i32.const 0))
                        (func (export "g") (call $ret (i32.const 7)))
                        (func (export "cb") (param i32 i32 i32) (result i32) unreachable))
                    (core func $ret (canon task.return (result u32)))
                    (core instance $i (instantiate $m (with "" (instance (export "task.return" (func $ret))))))
                    (func (export "f") async (result u32) (canon lift {options})))"#
            ))
            .unwrap()
        };
        let callback = lifted(r#"(core func $i "f") async (callback (core func $i "cb"))"#);
        let stackful = lifted(r#"(core func $i "g") async"#);
        let wasi3 = component(
            "package test:generic;
            package wasi:cli@0.3.0 { interface environment { get-arguments: func() -> list<string>; } }
            world w { import wasi:cli/environment@0.3.0; export hello: func() -> u32; }",
            r#"
            (import "wasi:cli/environment@0.3.0" "get-arguments" (func (param i32)))
            (func (export "hello") (result i32) i32.const 1)
            "#,
            false,
        );
        let (runtime, report, _dir, _) = serve(
            &[
                ("callback", callback),
                ("stackful", stackful),
                ("wasi3", wasi3),
            ],
            Limits::default(),
        )
        .await;
        let failure = |name: &str| {
            report
                .failed
                .iter()
                .find(|f| f.to_string().contains(&format!("{name}.wasm")))
                .map(|f| f.to_string())
                .unwrap_or_else(|| panic!("{name} loaded: {:?}", report.failed))
        };
        let e = failure("stackful");
        assert!(
            e.contains("requires the component model async stackful feature"),
            "{e}"
        );
        let e = failure("wasi3");
        assert!(
            e.contains("component imports instance `wasi:cli/environment@0.3.0`, but a matching implementation was not found in the linker"),
            "{e}"
        );
        assert_eq!(report.failed.len(), 2, "{:?}", report.failed);
        let out = call(&runtime, "f", json!({})).await.unwrap();
        assert_eq!(out.structured, Some(json!({"result": 7})));
    }

    /// A small deterministic generator (xorshift64*), so that every run checks
    /// the same cases and a failure names its seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }

        fn chance(&mut self, in_n: u64) -> bool {
            self.below(in_n) == 0
        }
    }

    /// A random WIT type at most `depth` levels deep; named types are
    /// declared in `decls` as WIT.
    fn gen_type(rng: &mut Rng, depth: u32, decls: &mut Vec<String>) -> WitType {
        let leaf = depth == 0 || rng.chance(3);
        let pick = if leaf {
            rng.below(13)
        } else {
            13 + rng.below(9)
        };
        let name = |decls: &Vec<String>| format!("t{}", decls.len());
        let names = |rng: &mut Rng, prefix: &str| -> Vec<String> {
            let n = 1 + rng.below(4);
            (0..n).map(|i| format!("{prefix}{i}")).collect()
        };
        match pick {
            0 => WitType::Bool,
            1 => WitType::S8,
            2 => WitType::U8,
            3 => WitType::S16,
            4 => WitType::U16,
            5 => WitType::S32,
            6 => WitType::U32,
            7 => WitType::S64,
            8 => WitType::U64,
            9 => WitType::F32,
            10 => WitType::F64,
            11 => WitType::Char,
            12 => WitType::String,
            13 => WitType::List(Box::new(gen_type(rng, depth - 1, decls))),
            14 => WitType::Option(Box::new(gen_type(rng, depth - 1, decls))),
            15 => WitType::Result {
                ok: (!rng.chance(3)).then(|| Box::new(gen_type(rng, depth - 1, decls))),
                err: (!rng.chance(3)).then(|| Box::new(gen_type(rng, depth - 1, decls))),
            },
            16 => WitType::Tuple(
                (0..1 + rng.below(3))
                    .map(|_| gen_type(rng, depth - 1, decls))
                    .collect(),
            ),
            17 => {
                let fields: Vec<(String, WitType)> = names(rng, "field-x")
                    .into_iter()
                    .map(|n| (n, gen_type(rng, depth - 1, decls)))
                    .collect();
                let n = name(decls);
                let body: Vec<String> = fields
                    .iter()
                    .map(|(f, t)| format!("{f}: {}", t.wit()))
                    .collect();
                decls.push(format!("record {n} {{ {} }}", body.join(", ")));
                WitType::Record {
                    name: Some(n),
                    fields,
                }
            }
            18 => {
                let cases: Vec<(String, Option<WitType>)> = names(rng, "case-x")
                    .into_iter()
                    .map(|n| {
                        let payload = (!rng.chance(3)).then(|| gen_type(rng, depth - 1, decls));
                        (n, payload)
                    })
                    .collect();
                let n = name(decls);
                let body: Vec<String> = cases
                    .iter()
                    .map(|(c, t)| match t {
                        Some(t) => format!("{c}({})", t.wit()),
                        None => c.clone(),
                    })
                    .collect();
                decls.push(format!("variant {n} {{ {} }}", body.join(", ")));
                WitType::Variant {
                    name: Some(n),
                    cases,
                }
            }
            19 => {
                let cases = names(rng, "e-x");
                let n = name(decls);
                decls.push(format!("enum {n} {{ {} }}", cases.join(", ")));
                WitType::Enum {
                    name: Some(n),
                    cases,
                }
            }
            _ => {
                let flags = names(rng, "flag-x");
                let n = name(decls);
                decls.push(format!("flags {n} {{ {} }}", flags.join(", ")));
                WitType::Flags {
                    name: Some(n),
                    names: flags,
                }
            }
        }
    }

    fn gen_string(rng: &mut Rng, max: u64) -> String {
        const CHARS: [char; 10] = ['a', 'Z', '0', ' ', '"', '\\', 'é', '日', '😀', '\u{1}'];
        (0..rng.below(max + 1))
            .map(|_| CHARS[rng.below(CHARS.len() as u64) as usize])
            .collect()
    }

    /// A random JSON value valid for `ty` (as the derived schema says).
    fn gen_value(rng: &mut Rng, ty: &WitType) -> Value {
        let int = |rng: &mut Rng, min: i128, max: i128| -> Value {
            let v = match rng.below(4) {
                0 => min,
                1 => max,
                _ => min + (rng.next() as i128).rem_euclid(max - min + 1),
            };
            if v < 0 {
                json!(v as i64)
            } else {
                json!(v as u64)
            }
        };
        match ty {
            WitType::Bool => json!(rng.chance(2)),
            WitType::S8 => int(rng, i8::MIN.into(), i8::MAX.into()),
            WitType::U8 => int(rng, 0, u8::MAX.into()),
            WitType::S16 => int(rng, i16::MIN.into(), i16::MAX.into()),
            WitType::U16 => int(rng, 0, u16::MAX.into()),
            WitType::S32 => int(rng, i32::MIN.into(), i32::MAX.into()),
            WitType::U32 => int(rng, 0, u32::MAX.into()),
            WitType::S64 => int(rng, i64::MIN.into(), i64::MAX.into()),
            WitType::U64 => int(rng, 0, u64::MAX.into()),
            WitType::F32 | WitType::F64 => match rng.below(6) {
                0 => json!(schema::NON_FINITE[rng.below(3) as usize]),
                1 => json!(-0.0),
                2 => json!(0.1),
                _ if matches!(ty, WitType::F32) => {
                    let f = f32::from_bits(rng.next() as u32);
                    if f.is_finite() {
                        json!(f.to_string().parse::<f64>().unwrap())
                    } else {
                        json!(1.5)
                    }
                }
                _ => {
                    let f = f64::from_bits(rng.next());
                    if f.is_finite() {
                        json!(f)
                    } else {
                        json!(-2.25)
                    }
                }
            },
            WitType::Char => json!(gen_string(rng, 0).chars().next().unwrap_or('x').to_string()),
            WitType::String => json!(gen_string(rng, 6)),
            WitType::List(t) => {
                Value::Array((0..rng.below(4)).map(|_| gen_value(rng, t)).collect())
            }
            WitType::Record { fields, .. } => {
                let mut o = Map::new();
                for (n, t) in fields {
                    o.insert(n.clone(), gen_value(rng, t));
                }
                Value::Object(o)
            }
            WitType::Tuple(ts) => Value::Array(ts.iter().map(|t| gen_value(rng, t)).collect()),
            WitType::Variant { cases, .. } => {
                let (n, t) = &cases[rng.below(cases.len() as u64) as usize];
                case(rng, n, t.as_ref())
            }
            WitType::Result { ok, err } => {
                if rng.chance(2) {
                    case(rng, "ok", ok.as_deref())
                } else {
                    case(rng, "err", err.as_deref())
                }
            }
            WitType::Enum { cases, .. } => json!(cases[rng.below(cases.len() as u64) as usize]),
            WitType::Option(t) => {
                if rng.chance(3) {
                    Value::Null
                } else if schema::nullable(t) {
                    json!({"some": gen_value(rng, t)})
                } else {
                    gen_value(rng, t)
                }
            }
            WitType::Flags { names, .. } => Value::Array(
                names
                    .iter()
                    .filter(|_| rng.chance(2))
                    .map(|n| json!(n))
                    .collect(),
            ),
        }
    }

    fn case(rng: &mut Rng, name: &str, payload: Option<&WitType>) -> Value {
        match payload {
            None => json!(name),
            Some(t) => {
                let mut o = Map::new();
                o.insert(name.into(), gen_value(rng, t));
                Value::Object(o)
            }
        }
    }

    /// The padding parameters that make every echo function take its
    /// arguments, and return its result, through memory in the same layout.
    const PADDING: usize = 16;

    /// The property test: for generated WIT types, values valid under the
    /// derived schema are validated by the runtime, lowered, echoed by a guest,
    /// lifted and written back as JSON, and come back equal. Each function is
    /// `echoN: func(v: T, p0: u8, ... p15: u8) -> tuple<T, u8, ...>`: with more
    /// than 16 flat parameters its arguments arrive as a pointer to a tuple
    /// laid out as its result is, so the guest returns that pointer.
    #[tokio::test]
    async fn values_of_generated_types_round_trip_through_an_echo_guest() {
        const FUNCTIONS: usize = 40;
        const VALUES: usize = 6;
        let seed = 0x5eed_2026_0029_u64;
        let mut rng = Rng(seed);
        let mut decls = Vec::new();
        let types: Vec<WitType> = (0..FUNCTIONS)
            .map(|_| gen_type(&mut rng, 4, &mut decls))
            .collect();
        let pad: String = (0..PADDING).map(|i| format!(", p{i}: u8")).collect();
        let pad_result: String = (0..PADDING).map(|_| ", u8").collect();
        let mut wit = String::from("package test:generic;\nworld w {\n");
        for d in &decls {
            writeln!(wit, "  {d}").unwrap();
        }
        let mut core = String::new();
        for (i, t) in types.iter().enumerate() {
            writeln!(
                wit,
                "  export echo{i}: func(v: {}{pad}) -> tuple<{}{pad_result}>;",
                t.wit(),
                t.wit()
            )
            .unwrap();
            writeln!(
                core,
                r#"(func (export "echo{i}") (param i32) (result i32) (local.get 0))"#
            )
            .unwrap();
        }
        wit.push_str("}\n");
        let (runtime, report, _dir, _) = serve(
            &[("echo", component(&wit, &core, false))],
            Limits::default(),
        )
        .await;
        assert!(report.failed.is_empty(), "{:?}\n{wit}", report.failed);
        let mut checked = 0;
        for (i, t) in types.iter().enumerate() {
            for _ in 0..VALUES {
                let v = gen_value(&mut rng, t);
                let mut args = Map::new();
                args.insert("v".into(), v.clone());
                for p in 0..PADDING {
                    args.insert(format!("p{p}"), json!(p));
                }
                let out = call(&runtime, &format!("echo{i}"), Value::Object(args))
                    .await
                    .unwrap_or_else(|e| {
                        panic!("seed {seed:#x}: echo{i} ({}) of {v}: {e}", t.wit())
                    });
                let back = &out.structured.as_ref().unwrap()["result"][0];
                assert_eq!(back, &v, "seed {seed:#x}: echo{i}: {}", t.wit());
                checked += 1;
            }
        }
        assert_eq!(checked, FUNCTIONS * VALUES);
    }
}
