//! PNG plots of a run's `metrics.csv`, drawn with plotters' bitmap backend and a font shipped in
//! the repository (no system font libraries needed).
use anyhow::{anyhow, Context, Result};
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

static FONT: Once = Once::new();

fn register_font() {
    FONT.call_once(|| {
        // The bytes are a valid TrueType font shipped with the crate.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../assets/DejaVuSans.ttf"),
        );
    });
}

/// One curve: a legend label and its points.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Draw curves on one chart into a PNG of 900 × 500 pixels. With `log_y`, non-positive values
/// are left out (they have no logarithm).
pub fn line_chart(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_y: bool,
) -> Result<()> {
    register_font();
    let keep = |&(x, y): &(f64, f64)| x.is_finite() && y.is_finite() && (!log_y || y > 0.0);
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.points.iter().copied().filter(keep))
        .collect();
    if all.is_empty() {
        return Err(anyhow!("nothing to plot for {}", path.display()));
    }
    let (x0, x1) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
    let (y0, y1) = all
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    let draw_err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| draw_err(&e))?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .label_style(("sans-serif", 14))
                .draw()
                .map_err(|e| draw_err(&e))?;
            for (i, s) in series.iter().enumerate() {
                let color = colors[i % colors.len()];
                chart
                    .draw_series(LineSeries::new(
                        s.points.iter().copied().filter(keep),
                        color.stroke_width(2),
                    ))
                    .map_err(|e| draw_err(&e))?
                    .label(s.label.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                    });
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .label_font(("sans-serif", 14))
                .draw()
                .map_err(|e| draw_err(&e))?;
        }};
    }
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80);
    if log_y {
        let (lo, hi) = (y0 / 2.0, if y1 > y0 { y1 * 2.0 } else { y0 * 10.0 });
        draw!(builder
            .build_cartesian_2d(x0..x1, (lo..hi).log_scale())
            .map_err(|e| draw_err(&e))?);
    } else {
        let pad = if y1 > y0 {
            0.05 * (y1 - y0)
        } else {
            y0.abs().max(1e-12) * 0.1
        };
        draw!(builder
            .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
            .map_err(|e| draw_err(&e))?);
    }
    root.present().map_err(|e| draw_err(&e))?;
    Ok(())
}

/// Columns of a CSV file by name (numeric columns only).
pub fn read_columns(path: &Path, names: &[&str]) -> Result<Vec<Vec<f64>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or_else(|| anyhow!("{} is empty", path.display()))?
        .split(',')
        .collect();
    let idx: Vec<usize> = names
        .iter()
        .map(|n| {
            header
                .iter()
                .position(|h| h == n)
                .ok_or_else(|| anyhow!("{} has no column {n}", path.display()))
        })
        .collect::<Result<_>>()?;
    let mut cols = vec![Vec::new(); names.len()];
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != header.len() {
            continue; // a line cut short by a run that was killed
        }
        for (c, &i) in idx.iter().enumerate() {
            cols[c].push(fields[i].parse::<f64>().unwrap_or(f64::NAN));
        }
    }
    Ok(cols)
}

/// `energy.png` (kinetic energy, log scale) and `penetration.png` from a run's `metrics.csv`.
pub fn plot_run(out_dir: &Path, title: &str) -> Result<Vec<PathBuf>> {
    let cols = read_columns(
        &out_dir.join("metrics.csv"),
        &["time", "kinetic_energy", "max_penetration"],
    )?;
    let (t, ke, pen) = (&cols[0], &cols[1], &cols[2]);
    let zip = |y: &Vec<f64>| t.iter().copied().zip(y.iter().copied()).collect::<Vec<_>>();
    let energy = out_dir.join("energy.png");
    line_chart(
        &energy,
        &format!("{title}: kinetic energy"),
        "time (s)",
        "kinetic energy (J)",
        &[Series {
            label: "kinetic energy".into(),
            points: zip(ke),
        }],
        true,
    )?;
    let penetration = out_dir.join("penetration.png");
    line_chart(
        &penetration,
        &format!("{title}: penetration"),
        "time (s)",
        "max penetration (m)",
        &[Series {
            label: "max penetration".into(),
            points: zip(pen),
        }],
        false,
    )?;
    Ok(vec![energy, penetration])
}
