//! PNG plots of a run's `metrics.csv`, drawn with plotters' bitmap backend and a font shipped in
//! the repository (no system font libraries needed).
use anyhow::{anyhow, Context, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
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

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A line through the points in their order.
    Line,
    /// A marker at each point; the marker shape cycles (circle, triangle, cross) over the point
    /// series of a chart so that series lying on top of each other stay distinguishable.
    Points,
}

/// Title, axis labels and scales of a chart.
pub struct Axes<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub log_x: bool,
    pub log_y: bool,
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
    let marked: Vec<(&Series, Mark)> = series.iter().map(|s| (s, Mark::Line)).collect();
    chart(
        path,
        &Axes {
            title,
            x_label,
            y_label,
            log_x: false,
            log_y,
        },
        &marked,
    )
}

/// Draw lines and point series on one chart into a PNG of 900 × 500 pixels. On a logarithmic
/// axis, points with a non-positive coordinate are left out (they have no logarithm); plotters
/// draws no tick below 2.2e-16 (f64::EPSILON) on a log axis, so callers clamp tiny values to a
/// stated floor above it.
pub fn chart(path: &Path, axes: &Axes, series: &[(&Series, Mark)]) -> Result<()> {
    register_font();
    let (log_x, log_y) = (axes.log_x, axes.log_y);
    let keep = move |&(x, y): &(f64, f64)| {
        x.is_finite() && y.is_finite() && (!log_x || x > 0.0) && (!log_y || y > 0.0)
    };
    let all: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|(s, _)| s.points.iter().copied().filter(keep))
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
    // Steps and counts are labelled 1000, not 1000.0.
    let x_integers = all.iter().all(|p| p.0.fract() == 0.0);
    // Axis ranges: a factor of 2 of margin on a log axis, 5 % on a linear one.
    let log_range = |lo: f64, hi: f64| (lo / 2.0, if hi > lo { hi * 2.0 } else { lo * 10.0 });
    let lin_range = |lo: f64, hi: f64| {
        let pad = if hi > lo {
            0.05 * (hi - lo)
        } else {
            lo.abs().max(1e-12) * 0.1
        };
        (lo - pad, hi + pad)
    };
    // Lines only: the x range is the data's (as the run plots always were); with markers, a
    // margin keeps the end markers inside the frame.
    let points_drawn = series.iter().any(|(_, m)| *m == Mark::Points);
    let (xa, xb) = if log_x {
        if points_drawn {
            (x0 / 1.5, x1 * 1.5)
        } else {
            (x0, if x1 > x0 { x1 } else { x0 * 10.0 })
        }
    } else if points_drawn {
        lin_range(x0, x1)
    } else {
        (x0, if x1 > x0 { x1 } else { x0 + 1.0 })
    };
    let (ya, yb) = if log_y {
        log_range(y0, y1)
    } else {
        lin_range(y0, y1)
    };
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    let draw_err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| draw_err(&e))?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            let mut mesh = chart.configure_mesh();
            mesh.x_desc(axes.x_label)
                .y_desc(axes.y_label)
                .label_style(("sans-serif", 14));
            // Log axes get short scientific labels (the default prints 9.999999999999999e-5).
            if log_x {
                mesh.x_label_formatter(&sci);
            } else if x_integers {
                mesh.x_label_formatter(&|v: &f64| format!("{v:.0}"));
            }
            if log_y {
                mesh.y_label_formatter(&sci);
            }
            mesh.draw().map_err(|e| draw_err(&e))?;
            let mut marker = 0usize;
            for (i, (s, mark)) in series.iter().enumerate() {
                let color = colors[i % colors.len()];
                let pts = s.points.iter().copied().filter(keep);
                match mark {
                    Mark::Line => {
                        chart
                            .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                            .map_err(|e| draw_err(&e))?
                            .label(s.label.clone())
                            .legend(move |(x, y)| {
                                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                            });
                    }
                    Mark::Points => {
                        let shape = marker % 3;
                        marker += 1;
                        let style = color.stroke_width(2);
                        let anno = match shape {
                            0 => {
                                chart.draw_series(pts.map(|p| Circle::new(p, 5, style).into_dyn()))
                            }
                            1 => chart.draw_series(
                                pts.map(|p| TriangleMarker::new(p, 7, style).into_dyn()),
                            ),
                            _ => chart.draw_series(pts.map(|p| Cross::new(p, 5, style).into_dyn())),
                        }
                        .map_err(|e| draw_err(&e))?;
                        anno.label(s.label.clone()).legend(move |(x, y)| {
                            let c = (x + 10, y);
                            match shape {
                                0 => Circle::new(c, 5, style).into_dyn(),
                                1 => TriangleMarker::new(c, 7, style).into_dyn(),
                                _ => Cross::new(c, 5, style).into_dyn(),
                            }
                        });
                    }
                }
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
        .caption(axes.title, ("sans-serif", 20))
        .margin(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(80);
    match (log_x, log_y) {
        (false, false) => draw!(builder
            .build_cartesian_2d(xa..xb, ya..yb)
            .map_err(|e| draw_err(&e))?),
        (false, true) => draw!(builder
            .build_cartesian_2d(xa..xb, (ya..yb).log_scale())
            .map_err(|e| draw_err(&e))?),
        (true, false) => draw!(builder
            .build_cartesian_2d((xa..xb).log_scale(), ya..yb)
            .map_err(|e| draw_err(&e))?),
        (true, true) => draw!(builder
            .build_cartesian_2d((xa..xb).log_scale(), (ya..yb).log_scale())
            .map_err(|e| draw_err(&e))?),
    }
    root.present().map_err(|e| draw_err(&e))?;
    Ok(())
}

/// A median with its quartiles at each x: drawn as a line with markers through the medians over
/// a translucent band from the first to the third quartile.
pub struct Band {
    pub label: String,
    /// (x, first quartile, median, third quartile), in x order.
    pub points: Vec<(f64, f64, f64, f64)>,
}

/// Draw quartile bands on log–log axes into a PNG of 900 × 500 pixels. Every coordinate must be
/// positive and finite (there is no logarithm otherwise): callers clamp zeros to a floor they
/// state in the title or labels; a point that is not is an error, never dropped.
pub fn band_chart(path: &Path, axes: &Axes, bands: &[Band]) -> Result<()> {
    register_font();
    let mut all = Vec::new();
    for b in bands {
        for &(x, q1, m, q3) in &b.points {
            for v in [x, q1, m, q3] {
                if !(v.is_finite() && v > 0.0) {
                    return Err(anyhow!(
                        "{}: {} has a point at x = {x} with a value {v} that has no logarithm",
                        path.display(),
                        b.label
                    ));
                }
            }
            all.push((x, q1.min(m), q3.max(m)));
        }
    }
    if all.is_empty() {
        return Err(anyhow!("nothing to plot for {}", path.display()));
    }
    let fold = |f: fn(&(f64, f64, f64)) -> (f64, f64)| {
        all.iter()
            .map(f)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (lo, hi)| {
                (a.min(lo), b.max(hi))
            })
    };
    let (x0, x1) = fold(|p| (p.0, p.0));
    // Ticks at the data's x values only (the sweep's step sizes): the default log key points
    // 1–9 per decade ran the labels 8e-3, 9e-3 and 1e-2 into each other.
    let mut ticks: Vec<f64> = all.iter().map(|p| p.0).collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    let (y0, y1) = fold(|p| (p.1, p.2));
    // A factor of 1.5 of margin in x keeps the end markers inside, 3 in y the band's edges.
    let (xa, xb) = (x0 / 1.5, x1 * 1.5);
    let (ya, yb) = (y0 / 3.0, if y1 > y0 { y1 * 3.0 } else { y0 * 30.0 });
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    let draw_err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| draw_err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(axes.title, ("sans-serif", 20))
        .margin(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(
            (xa..xb).log_scale().with_key_points(ticks),
            (ya..yb).log_scale(),
        )
        .map_err(|e| draw_err(&e))?;
    chart
        .configure_mesh()
        .x_desc(axes.x_label)
        .y_desc(axes.y_label)
        .label_style(("sans-serif", 14))
        .x_label_formatter(&sci)
        .y_label_formatter(&sci)
        .draw()
        .map_err(|e| draw_err(&e))?;
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    for (i, b) in bands.iter().enumerate() {
        let color = colors[i % colors.len()];
        // The band: along the third quartiles, back along the first.
        let outline: Vec<(f64, f64)> = b
            .points
            .iter()
            .map(|p| (p.0, p.3))
            .chain(b.points.iter().rev().map(|p| (p.0, p.1)))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                outline,
                color.mix(0.15).filled(),
            )))
            .map_err(|e| draw_err(&e))?;
        let medians: Vec<(f64, f64)> = b.points.iter().map(|p| (p.0, p.2)).collect();
        chart
            .draw_series(LineSeries::new(medians.clone(), color.stroke_width(2)))
            .map_err(|e| draw_err(&e))?
            .label(b.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart
            .draw_series(
                medians
                    .into_iter()
                    .map(|p| Circle::new(p, 4, color.filled())),
            )
            .map_err(|e| draw_err(&e))?;
    }
    // Upper left: the data rise to the right (overlap grows with the step).
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_err(&e))?;
    root.present().map_err(|e| draw_err(&e))?;
    Ok(())
}

/// One series of a bar chart: a value per category and, optionally, an interval per category
/// drawn as an error bar.
pub struct BarGroup {
    pub label: String,
    pub values: Vec<f64>,
    /// (low, high) per category, or none (values without an interval, e.g. a paper's figures).
    pub intervals: Option<Vec<(f64, f64)>>,
}

/// Draw grouped bars into a PNG of 900 × 500 pixels: one cluster per category, one bar per group
/// side by side, error bars where a group has intervals; the y axis from 0. Every value and
/// interval must be finite and every group as long as `categories` (an error otherwise, never
/// dropped).
pub fn bar_chart(
    path: &Path,
    axes: &Axes,
    categories: &[String],
    groups: &[BarGroup],
) -> Result<()> {
    register_font();
    let n = categories.len();
    if n == 0 || groups.is_empty() {
        return Err(anyhow!("nothing to plot for {}", path.display()));
    }
    let mut top: f64 = 0.0;
    for g in groups {
        let ok_len = g.values.len() == n && g.intervals.as_ref().is_none_or(|iv| iv.len() == n);
        if !ok_len {
            return Err(anyhow!(
                "{}: {} does not have {n} categories",
                path.display(),
                g.label
            ));
        }
        let all = g
            .values
            .iter()
            .copied()
            .chain(g.intervals.iter().flatten().flat_map(|&(lo, hi)| [lo, hi]));
        for v in all {
            if !v.is_finite() {
                return Err(anyhow!("{}: {} has a value {v}", path.display(), g.label));
            }
            top = top.max(v);
        }
    }
    let top = if top > 0.0 { top * 1.15 } else { 1.0 };
    let root = BitMapBackend::new(path, (900, 500)).into_drawing_area();
    let draw_err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| draw_err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(axes.title, ("sans-serif", 20))
        .margin(12)
        .margin_right(30)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..n as f64, 0.0..top)
        .map_err(|e| draw_err(&e))?;
    // No numeric x labels: each category's name is written under its cluster below.
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .x_desc(axes.x_label)
        .y_desc(axes.y_label)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_err(&e))?;
    let centred =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, name) in categories.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        root.draw(&Text::new(name.clone(), (px, py + 6), centred.clone()))
            .map_err(|e| draw_err(&e))?;
    }
    let colors = [BLUE, RED, GREEN, MAGENTA, CYAN, BLACK];
    // Each cluster fills 80 % of its unit; bars side by side within it.
    let width = 0.8 / groups.len() as f64;
    for (j, g) in groups.iter().enumerate() {
        let color = colors[j % colors.len()];
        let x0 = |i: usize| i as f64 + 0.1 + j as f64 * width;
        chart
            .draw_series(g.values.iter().enumerate().map(|(i, &v)| {
                Rectangle::new(
                    [(x0(i), 0.0), (x0(i) + width * 0.9, v)],
                    color.mix(0.6).filled(),
                )
            }))
            .map_err(|e| draw_err(&e))?
            .label(g.label.clone())
            .legend(move |(x, y)| {
                Rectangle::new([(x, y - 5), (x + 14, y + 5)], color.mix(0.6).filled())
            });
        if let Some(iv) = &g.intervals {
            let bars = iv.iter().enumerate().flat_map(|(i, &(lo, hi))| {
                let xm = x0(i) + width * 0.45;
                let cap = width * 0.2;
                [
                    PathElement::new(vec![(xm, lo), (xm, hi)], BLACK.stroke_width(1)),
                    PathElement::new(vec![(xm - cap, lo), (xm + cap, lo)], BLACK.stroke_width(1)),
                    PathElement::new(vec![(xm - cap, hi), (xm + cap, hi)], BLACK.stroke_width(1)),
                ]
            });
            chart.draw_series(bars).map_err(|e| draw_err(&e))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_err(&e))?;
    root.present().map_err(|e| draw_err(&e))?;
    Ok(())
}

/// One cell of a grid chart: its lines of text and its fill colour (red, green, blue).
pub struct Cell {
    pub lines: Vec<String>,
    pub color: (u8, u8, u8),
}

/// A table of coloured cells with row and column labels, and a legend of the colours.
pub struct Grid<'a> {
    pub title: &'a str,
    pub row_labels: Vec<String>,
    pub column_labels: Vec<String>,
    /// Row by row, each row as long as `column_labels`.
    pub cells: Vec<Vec<Cell>>,
    /// (meaning, colour) of each colour used.
    pub legend: Vec<(String, (u8, u8, u8))>,
}

/// Draw `grid` into a PNG sized to its rows and columns (cells of 200 × 52 pixels, a label
/// column of 170). A row whose length differs from the column labels' is an error.
pub fn grid_chart(path: &Path, grid: &Grid) -> Result<()> {
    register_font();
    let (cell_w, cell_h, label_w, head_h, title_h, legend_h) = (200, 52, 170, 44, 44, 44);
    let columns = grid.column_labels.len();
    if grid.cells.len() != grid.row_labels.len() || grid.cells.iter().any(|r| r.len() != columns) {
        return Err(anyhow!(
            "{}: the grid's cells do not match its {} rows and {columns} columns",
            path.display(),
            grid.row_labels.len()
        ));
    }
    let width = label_w + cell_w * columns as u32 + 20;
    let height = title_h + head_h + cell_h * grid.row_labels.len() as u32 + legend_h + 10;
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    let draw_err = |e: &dyn std::fmt::Display| anyhow!("drawing {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| draw_err(&e))?;
    let centred = |size: u32| {
        TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Center, VPos::Center))
    };
    let left = |size: u32| {
        TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Left, VPos::Center))
    };
    let text = |s: &str, at: (u32, u32), style: &TextStyle| {
        root.draw(&Text::new(
            s.to_string(),
            (at.0 as i32, at.1 as i32),
            style.clone(),
        ))
        .map_err(|e| draw_err(&e))
    };
    text(grid.title, (width / 2, title_h / 2), &centred(18))?;
    let x_of = |c: usize| label_w + cell_w * c as u32;
    let y_of = |r: usize| title_h + head_h + cell_h * r as u32;
    for (c, label) in grid.column_labels.iter().enumerate() {
        text(
            label,
            (x_of(c) + cell_w / 2, title_h + head_h / 2),
            &centred(14),
        )?;
    }
    for (r, (label, row)) in grid.row_labels.iter().zip(&grid.cells).enumerate() {
        text(label, (8, y_of(r) + cell_h / 2), &left(14))?;
        for (c, cell) in row.iter().enumerate() {
            let (x0, y0) = (x_of(c) as i32, y_of(r) as i32);
            let corners = [(x0, y0), (x0 + cell_w as i32, y0 + cell_h as i32)];
            let (red, green, blue) = cell.color;
            root.draw(&Rectangle::new(
                corners,
                RGBColor(red, green, blue).filled(),
            ))
            .and_then(|_| root.draw(&Rectangle::new(corners, WHITE.stroke_width(2))))
            .map_err(|e| draw_err(&e))?;
            let n = cell.lines.len().max(1) as u32;
            for (k, line) in cell.lines.iter().enumerate() {
                let y = y_of(r) + cell_h * (2 * k as u32 + 1) / (2 * n);
                text(line, (x_of(c) + cell_w / 2, y), &centred(13))?;
            }
        }
    }
    let mut x = label_w;
    let y = y_of(grid.row_labels.len()) + legend_h / 2;
    for (meaning, (red, green, blue)) in &grid.legend {
        let swatch = [(x as i32, y as i32 - 8), (x as i32 + 16, y as i32 + 8)];
        root.draw(&Rectangle::new(
            swatch,
            RGBColor(*red, *green, *blue).filled(),
        ))
        .map_err(|e| draw_err(&e))?;
        text(meaning, (x + 22, y), &left(13))?;
        x += 30 + 8 * meaning.chars().count() as u32;
    }
    root.present().map_err(|e| draw_err(&e))?;
    Ok(())
}

/// A tick label in scientific notation with at most 3 significant digits: 1e-4, 2.5e-3.
fn sci(v: &f64) -> String {
    let s = format!("{v:.2e}");
    match s.split_once('e') {
        Some((m, e)) if m.contains('.') => {
            let m = m.trim_end_matches('0').trim_end_matches('.');
            format!("{m}e{e}")
        }
        _ => s,
    }
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

/// `energy.png` (kinetic energy, log scale) and `penetration.png` from a run's `metrics.csv`,
/// with one more curve per deformable (its `deformable_<name>.csv`, the names from
/// `deformables.json`): its kinetic energy, and its particles' deepest penetration into its own
/// surfaces and into coupled bodies.
pub fn plot_run(out_dir: &Path, title: &str) -> Result<Vec<PathBuf>> {
    let cols = read_columns(
        &out_dir.join("metrics.csv"),
        &["time", "kinetic_energy", "max_penetration"],
    )?;
    let series = |label: String, t: &[f64], y: &[f64]| Series {
        label,
        points: t.iter().copied().zip(y.iter().copied()).collect(),
    };
    let (t, ke, pen) = (&cols[0], &cols[1], &cols[2]);
    let mut energies = vec![series("rigid bodies".into(), t, ke)];
    let mut depths = vec![series("rigid bodies".into(), t, pen)];
    for name in deformable_names(out_dir)? {
        let d = read_columns(
            &out_dir.join(format!("deformable_{name}.csv")),
            &[
                "time",
                "kinetic_energy",
                "max_penetration",
                "coupled_penetration",
            ],
        )?;
        energies.push(series(format!("deformable {name}"), &d[0], &d[1]));
        depths.push(series(format!("{name}: own surfaces"), &d[0], &d[2]));
        depths.push(series(format!("{name}: coupled bodies"), &d[0], &d[3]));
    }
    let energy = out_dir.join("energy.png");
    line_chart(
        &energy,
        &format!("{title}: kinetic energy"),
        "time (s)",
        "kinetic energy (J)",
        &energies,
        true,
    )?;
    let penetration = out_dir.join("penetration.png");
    line_chart(
        &penetration,
        &format!("{title}: penetration"),
        "time (s)",
        "max penetration (m)",
        &depths,
        false,
    )?;
    Ok(vec![energy, penetration])
}

/// The deformables' names in `deformables.json` (none when the run wrote no such file).
fn deformable_names(out_dir: &Path) -> Result<Vec<String>> {
    let path = out_dir.join("deformables.json");
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    let list: Vec<serde_json::Value> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON list", path.display()))?;
    list.iter()
        .map(|d| {
            d["name"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| anyhow!("{}: an entry without a name", path.display()))
        })
        .collect()
}
