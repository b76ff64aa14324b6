//! The picture: the stdio round-trip latency distributions (CDF) of the
//! servers (native, the host, the host making one ahead, the host reusing
//! instances), and their
//! throughput against concurrency over stdio and HTTP (sessions,
//! stateless), drawn as one SVG with plotters.

use std::path::Path;

use plotters::prelude::*;

use crate::{LEVELS, Results, SIDES, Side, median, quantile};

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Picks one transport's calls/s (per level, per round) out of a side's
/// results.
pub type Rates = fn(&Results) -> &[Vec<f64>; 3];

/// Points drawn per CDF line.
const CDF_POINTS: usize = 400;

const FONT: &str = "sans-serif";

fn color(side: Side) -> RGBColor {
    match side {
        Side::Native => RGBColor(31, 119, 180),
        Side::Host => RGBColor(230, 110, 0),
        Side::OneAhead => RGBColor(148, 103, 189),
        Side::Reuse => RGBColor(44, 160, 44),
    }
}

/// Draws `results` (latency samples sorted) to `path`, creating its
/// directory.
pub fn draw(path: &Path, results: &[Results; SIDES]) -> DrawResult {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let root = SVGBackend::new(path, (1200, 860)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "mcp-wasm-host (sandboxed plugin) vs a native rmcp server: tool `hash`, same machine, same run",
        (FONT, 22),
    )?;
    let panels = root.split_evenly((2, 2));
    latency(&panels[0], results)?;
    // One y scale for every throughput panel, so they compare at a glance.
    let top = results
        .iter()
        .flat_map(|r| [&r.stdio, &r.sessions, &r.stateless])
        .flat_map(|rates| rates.iter().map(|v| median(v)))
        .fold(0.0, f64::max)
        * 1.15;
    let panel_rates: [(&str, &str, Rates); 3] = [
        (
            "stdio: calls/s, one connection",
            "requests in flight",
            |r| &r.stdio,
        ),
        (
            "HTTP with sessions: calls/s",
            "clients (one request each)",
            |r| &r.sessions,
        ),
        (
            "HTTP stateless: calls/s",
            "clients (one request each)",
            |r| &r.stateless,
        ),
    ];
    for (panel, (title, x_desc, rates)) in panels[1..].iter().zip(panel_rates) {
        throughput(panel, title, x_desc, top, |side| {
            let r = rates(&results[side as usize]);
            [0, 1, 2].map(|i| median(&r[i]))
        })?;
    }
    root.present()?;
    Ok(())
}

/// The stdio round-trip CDFs on a log scale (the body and the tail both
/// show), up to the 99.9th percentile of the slower.
fn latency(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    results: &[Results; SIDES],
) -> DrawResult {
    let right = results
        .iter()
        .map(|r| quantile(&r.latency_us, 0.999))
        .fold(0.0, f64::max);
    let left = results
        .iter()
        .map(|r| r.latency_us[0])
        .fold(f64::INFINITY, f64::min)
        * 0.9;
    let mut chart = ChartBuilder::on(area)
        .caption(
            "stdio tools/call round trip, one at a time (CDF)",
            (FONT, 18),
        )
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(52)
        .build_cartesian_2d((left..right).log_scale(), 0f64..1f64)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .x_desc("round trip (µs, log scale)")
        .y_desc("share of calls at most that")
        .axis_desc_style((FONT, 14))
        .draw()?;
    for side in Side::ALL {
        let sorted = &results[side as usize].latency_us;
        let points = (0..=CDF_POINTS).map(|i| {
            let q = i as f64 / CDF_POINTS as f64;
            (quantile(sorted, q).min(right), q)
        });
        let (p50, p99) = (quantile(sorted, 0.5), quantile(sorted, 0.99));
        chart
            .draw_series(LineSeries::new(points, color(side).stroke_width(2)))?
            .label(format!("{}: p50 {p50:.0} µs, p99 {p99:.0} µs", side.name()))
            .legend(move |(x, y)| legend_mark(side, x, y));
    }
    legend(&mut chart)
}

/// Calls per second against concurrency (log scale), one line per side.
fn throughput(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    title: &str,
    x_desc: &str,
    top: f64,
    rates: impl Fn(Side) -> [f64; 3],
) -> DrawResult {
    let levels = LEVELS.map(|l| l as f64);
    let mut chart = ChartBuilder::on(area)
        .caption(title, (FONT, 18))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (0.7f64..90f64).log_scale().with_key_points(levels.to_vec()),
            0f64..top,
        )?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc(x_desc)
        .y_desc("calls/s")
        .axis_desc_style((FONT, 14))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{:.0}k", y / 1e3))
        .draw()?;
    for side in Side::ALL {
        let values = rates(side);
        chart
            .draw_series(
                LineSeries::new(levels.into_iter().zip(values), color(side).stroke_width(2))
                    .point_size(4),
            )?
            .label(side.name())
            .legend(move |(x, y)| legend_mark(side, x, y));
        // Each value written by its point: the native's above, the hosts'
        // below, one under the other, so close values do not overlap.
        let offset = match side {
            Side::Native => (-12, -20),
            Side::Host => (-12, 8),
            Side::OneAhead => (-12, 22),
            Side::Reuse => (-12, 36),
        };
        chart.draw_series(levels.into_iter().zip(values).map(|(x, y)| {
            EmptyElement::at((x, y))
                + Text::new(
                    format!("{:.1}k", y / 1e3),
                    offset,
                    (FONT, 13).into_font().color(&color(side)),
                )
        }))?;
    }
    legend(&mut chart)
}

/// A side's mark in a legend: a short line in its colour.
fn legend_mark(side: Side, x: i32, y: i32) -> PathElement<(i32, i32)> {
    PathElement::new(vec![(x, y), (x + 20, y)], color(side).stroke_width(2))
}

/// Draws a chart's legend in its lower right corner.
fn legend<'a, CT: CoordTranslate>(chart: &mut ChartContext<'a, SVGBackend<'a>, CT>) -> DrawResult {
    chart
        .configure_series_labels()
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerRight)
        .draw()?;
    Ok(())
}
