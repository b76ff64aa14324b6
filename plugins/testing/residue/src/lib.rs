//! Test plugin: writes a marker into its memory and reads it back, so a test
//! can show that no call sees what an earlier call left behind, whether the
//! pooling allocator resets a slot in place (the part it keeps resident) or
//! hands the pages back to the kernel (the rest).

use std::sync::Mutex;

use mcp_wasm_sdk::prelude::*;

/// Larger than the host's default resident budget (2 MiB), so both ends of
/// each area are reset by different means.
const SIZE: usize = 3 << 20;

/// Zeroed data in the module's initial memory (its `.bss`).
static AREA: Mutex<[u8; SIZE]> = Mutex::new([0; SIZE]);

/// Arguments of `scribble`.
#[derive(Deserialize, JsonSchema)]
struct Scribble {
    /// The byte to fill memory with (1-255).
    byte: u8,
}

/// What `look` found.
#[derive(Serialize, JsonSchema)]
struct Seen {
    /// Non-zero bytes in the static area (zero when the module starts).
    static_nonzero: usize,
    /// Non-zero bytes in memory grown by the same size: the engine must
    /// hand grown pages over zeroed, whatever an earlier call wrote there.
    grown_nonzero: usize,
}

fn nonzero(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| **b != 0).count()
}

/// Grows linear memory by `SIZE` bytes and lets `f` see the new pages,
/// straight from `memory.grow`: no allocator in between, which would zero
/// them itself and hide what the engine handed over.
#[allow(unsafe_code)]
fn with_grown<T>(f: impl FnOnce(&mut [u8]) -> T) -> Result<T, ToolError> {
    #[cfg(target_arch = "wasm32")]
    {
        const PAGE: usize = 65536;
        let old = core::arch::wasm32::memory_grow(0, SIZE / PAGE);
        if old == usize::MAX {
            return Err(ToolError::failed("memory.grow refused"));
        }
        // SAFETY: the pages [old, old + SIZE/PAGE) were just added to
        // memory 0; nothing else (the allocator included) knows of them.
        let grown = unsafe { std::slice::from_raw_parts_mut((old * PAGE) as *mut u8, SIZE) };
        Ok(f(grown))
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = f;
        Err(ToolError::failed("only in WebAssembly"))
    }
}

struct Residue;

impl Plugin for Residue {
    fn router() -> Router {
        Router::new()
            .tool(
                ToolDef::new(
                    "scribble",
                    "Fills a static area and newly grown memory with `byte`.",
                ),
                |args: Scribble| -> ToolResult {
                    let mut area = AREA.lock().map_err(|_| ToolError::failed("poisoned"))?;
                    area.fill(args.byte);
                    let grown = with_grown(|pages| {
                        pages.fill(args.byte);
                        SIZE - pages.iter().filter(|b| **b == 0).count()
                    })?;
                    Ok(Output::text(format!(
                        "scribbled {} + {grown} bytes",
                        SIZE - area.iter().filter(|b| **b == 0).count()
                    )))
                },
            )
            .json_tool(
                ToolDef::new("look", "Counts non-zero bytes where `scribble` writes."),
                |_: NoArgs| -> Result<Seen, ToolError> {
                    let area = AREA.lock().map_err(|_| ToolError::failed("poisoned"))?;
                    Ok(Seen {
                        static_nonzero: nonzero(&area[..]),
                        grown_nonzero: with_grown(|pages| nonzero(pages))?,
                    })
                },
            )
    }
}

export_plugin!(Residue);
