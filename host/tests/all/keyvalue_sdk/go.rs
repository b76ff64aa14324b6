//! The Go SDK's store API (package `store`) through the real binary, with
//! `plugins/go/sdkstore` built from source by `scripts/build-go-plugin.sh`
//! (without Go each test says so and passes without running). The checks
//! are mod.rs's; `regex` and `stats` use the SDK and not its store package.

sdk_store_tests!(crate::go_plugins::built, ["regex", "stats"]);
