//! Test plugin: a tool that writes to stdout and stderr.

use mcp_wasm_sdk::prelude::*;

struct Stdout;

impl Plugin for Stdout {
    fn router() -> Router {
        Router::new().tool(
            ToolDef::new(
                "chatty",
                "Prints several lines to stdout and stderr, then returns \"done\".",
            ),
            |_: NoArgs| -> ToolResult {
                println!("chatty: first line on stdout");
                println!(r#"{{"jsonrpc":"2.0","id":1,"result":{{}}}}"#);
                println!("chatty: last line on stdout");
                eprintln!("chatty: first line on stderr");
                eprintln!(r#"{{"jsonrpc":"2.0","method":"notifications/message"}}"#);
                eprintln!("chatty: last line on stderr");
                Ok(Output::text("done"))
            },
        )
    }
}

export_plugin!(Stdout);
