//! The C SDK's store API (`mcp_store_*`) through the real binary, with
//! `plugins/c/sdkstore` built from source by `scripts/build-c-plugin.sh`
//! (without clang-19 each test says so and passes without running). The
//! checks are mod.rs's; `calc` and `jsonread` link the same SDK, `store.c`
//! included, and call none of it.

sdk_store_tests!(crate::c_plugins::built, ["calc", "jsonread"]);
