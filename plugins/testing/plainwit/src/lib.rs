//! A component built from plain WIT (`wit/plain.wit`) with plain
//! wit-bindgen and no SDK: it knows nothing of mcp-wasm-host, which serves
//! each function it exports as a tool (a generic component).

// Only a wasm32 build has anything in it: the exports carry the component
// model's names, which a native linker cannot export.
#![cfg(target_family = "wasm")]

#[allow(
    unsafe_code,
    unused_qualifications,
    missing_debug_implementations,
    missing_docs,
    clippy::all
)]
mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "plain",
    });
}

use bindings::exports::demo::plain::shapes::{self, ParseError, Point, Shape};
use bindings::exports::demo::plain::text::{self, Style, Unit};

struct Plain;

impl bindings::Guest for Plain {
    fn add(a: i64, b: i64) -> i64 {
        a.wrapping_add(b)
    }

    fn divide(a: u32, b: u32) -> Result<u32, String> {
        a.checked_div(b)
            .ok_or_else(|| format!("cannot divide {a} by zero"))
    }

    fn sum_bytes(data: Vec<u8>) -> u64 {
        data.iter().map(|&b| u64::from(b)).sum()
    }

    fn echo_u64(n: u64) -> u64 {
        n
    }

    fn swap(pair: (String, i8)) -> (i8, String) {
        (pair.1, pair.0)
    }

    fn nothing() {}

    fn crash() {
        panic!("crash was called")
    }

    fn hash(text: String) -> String {
        let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{hash:016x}")
    }

    fn status(authority: String, path: String) -> Result<u16, String> {
        use wasip2::http::outgoing_handler;
        use wasip2::http::types::{Fields, OutgoingRequest, Scheme};
        let request = OutgoingRequest::new(Fields::new());
        let refused = |what: &str| format!("{what} refused");
        request
            .set_scheme(Some(&Scheme::Http))
            .map_err(|()| refused("scheme"))?;
        request
            .set_authority(Some(&authority))
            .map_err(|()| refused("authority"))?;
        request
            .set_path_with_query(Some(&path))
            .map_err(|()| refused("path"))?;
        let future = outgoing_handler::handle(request, None).map_err(|e| format!("{e:?}"))?;
        future.subscribe().block();
        match future.get() {
            Some(Ok(Ok(response))) => Ok(response.status()),
            Some(Ok(Err(code))) => Err(format!("{code:?}")),
            Some(Err(())) | None => Err("no response".into()),
        }
    }
}

impl shapes::Guest for Plain {
    fn area(s: Shape) -> f64 {
        match s {
            Shape::Circle(r) => std::f64::consts::PI * r * r,
            Shape::Rect((w, h)) => w * h,
            Shape::Dot => 0.0,
        }
    }

    fn midpoint(a: Point, b: Point) -> Point {
        Point {
            x: (a.x + b.x) / 2.0,
            y: (a.y + b.y) / 2.0,
        }
    }

    fn parse(text: String) -> Result<Point, ParseError> {
        let Some((x, y)) = text.split_once(',') else {
            return Err(ParseError {
                position: text.len() as u32,
                message: "expected `x,y`".into(),
            });
        };
        let number = |s: &str, position: usize| {
            s.trim().parse::<f64>().map_err(|e| ParseError {
                position: position as u32,
                message: e.to_string(),
            })
        };
        Ok(Point {
            x: number(x, 0)?,
            y: number(y, x.len() + 1)?,
        })
    }
}

impl text::Guest for Plain {
    fn describe(
        name: String,
        tags: Vec<String>,
        style: Style,
        nick: Option<String>,
        unit: Unit,
    ) -> String {
        let mut styles = Vec::new();
        for (flag, word) in [
            (Style::BOLD, "bold"),
            (Style::ITALIC, "italic"),
            (Style::UNDERLINE, "underline"),
        ] {
            if style.contains(flag) {
                styles.push(word);
            }
        }
        let unit = match unit {
            Unit::Metres => "metres",
            Unit::Feet => "feet",
        };
        format!(
            "{name}{} [{}] ({}) in {unit}",
            nick.map(|n| format!(" aka {n}")).unwrap_or_default(),
            tags.join(", "),
            styles.join("+"),
        )
    }

    fn first_char(s: String) -> Option<char> {
        s.chars().next()
    }
}

// The generated export glue is unsafe code (the workspace denies it elsewhere).
#[allow(unsafe_code)]
mod export {
    use super::{Plain, bindings};
    bindings::export!(Plain with_types_in bindings);
}
