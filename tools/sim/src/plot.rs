//! The tool's charts, drawn with `plotters` into RGB buffers: axes with ticks and labels,
//! a caption, legends, in DejaVu Sans embedded in the tool (no system font needed, the
//! same picture on every machine). A [`Figure`] is written as a PNG; several make an
//! animated GIF.

use std::io::Write;
use std::sync::Once;

use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// The embedded font (DejaVu Sans, Bitstream Vera license: `assets/DejaVuSans-LICENSE.txt`).
const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
const FAMILY: &str = "sans-serif";

/// League colours: bronze, silver, gold, platinum, then purple for any higher league.
const LEAGUES: [RGBColor; 5] = [RGBColor(205, 127, 50), RGBColor(140, 140, 160), RGBColor(212, 175, 55), RGBColor(70, 160, 200), RGBColor(120, 60, 170)];

/// Colour of league `index`.
pub fn league_colour(index: usize) -> RGBColor {
    LEAGUES[index.min(LEAGUES.len() - 1)]
}

/// The colour of series `index` of a multi-series chart (a qualitative palette).
pub fn series_colour(index: usize) -> RGBColor {
    const PALETTE: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    PALETTE[index % PALETTE.len()]
}

/// The reference line's colour (rating = skill).
pub const REFERENCE: RGBColor = RGBColor(150, 150, 150);
/// A single series' colour.
pub const SERIES: RGBColor = RGBColor(40, 90, 200);
/// A highlighted point's colour.
pub const HIGHLIGHT: RGBColor = RGBColor(220, 50, 50);

fn ensure_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // The bytes are a valid TrueType font, checked by the tests that draw charts.
        let _ = register_font(FAMILY, FontStyle::Normal, FONT);
    });
}

/// A rendered chart: RGB pixels, row by row.
pub struct Figure {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

impl Figure {
    pub fn write_png(&self, out: impl Write) -> std::io::Result<()> {
        let mut encoder = png::Encoder::new(out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
        writer.write_image_data(&self.rgb).map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    }
}

/// What a chart shows.
pub struct Axes<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub x_range: (f64, f64),
    pub y_range: (f64, f64),
}

/// One group of points or one line, with its legend entry (`None`: no entry).
pub struct Series {
    pub label: Option<String>,
    pub colour: RGBColor,
    pub points: Vec<(f64, f64)>,
    /// Dot radius in pixels; 0 draws a line through the points instead.
    pub radius: u32,
}

/// Draws `series` on axes into a `width` x `height` figure; `diagonal` adds the line
/// y = x in grey (where a calibrated rating lies).
pub fn chart(width: u32, height: u32, axes: &Axes<'_>, series: &[Series], diagonal: bool) -> Result<Figure, String> {
    ensure_font();
    let mut rgb = vec![255u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (x0, x1) = axes.x_range;
        let (y0, y1) = axes.y_range;
        let mut chart = ChartBuilder::on(&root)
            .caption(axes.title, (FAMILY, 20))
            .margin(12)
            .x_label_area_size(42)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| e.to_string())?;
        let x_format = tick_format(x1 - x0);
        let y_format = tick_format(y1 - y0);
        chart
            .configure_mesh()
            .x_label_formatter(&x_format)
            .y_label_formatter(&y_format)
            .x_desc(axes.x_label)
            .y_desc(axes.y_label)
            .label_style((FAMILY, 13))
            .axis_desc_style((FAMILY, 15))
            .light_line_style(RGBColor(238, 238, 238))
            .bold_line_style(RGBColor(210, 210, 210))
            .draw()
            .map_err(|e| e.to_string())?;
        if diagonal {
            let (low, high) = (x0.max(y0), x1.min(y1));
            if low < high {
                chart.draw_series(LineSeries::new([(low, low), (high, high)], REFERENCE.stroke_width(1))).map_err(|e| e.to_string())?;
            }
        }
        let mut legend = false;
        for s in series {
            let colour = s.colour;
            let drawn = if s.radius == 0 {
                chart.draw_series(LineSeries::new(s.points.iter().copied(), colour.stroke_width(2))).map_err(|e| e.to_string())?
            } else {
                let inside = s.points.iter().copied().filter(|&(x, y)| (x0..=x1).contains(&x) && (y0..=y1).contains(&y));
                chart.draw_series(inside.map(|p| Circle::new(p, s.radius, colour.filled()))).map_err(|e| e.to_string())?
            };
            if let Some(label) = &s.label {
                legend = true;
                drawn.label(label.as_str()).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled()));
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .label_font((FAMILY, 13))
                .background_style(WHITE.mix(0.85))
                .border_style(RGBColor(180, 180, 180))
                .position(SeriesLabelPosition::UpperLeft)
                .draw()
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(Figure { width, height, rgb })
}

/// Tick labels with as many decimals as the axis span needs (none for ratings).
fn tick_format(span: f64) -> impl Fn(&f64) -> String {
    let decimals = if span >= 20.0 { 0 } else { (2.0 - span.log10().floor()).clamp(0.0, 6.0) as usize };
    move |value: &f64| format!("{value:.decimals$}")
}

/// Nicely rounded axis range around `low..high` with a 5% margin.
pub fn padded((low, high): (f64, f64)) -> (f64, f64) {
    let margin = ((high - low) * 0.05).max(1.0);
    (low - margin, high + margin)
}

/// Writes figures as an animated GIF, `delay` in 1/100 s (each frame quantized to 256
/// colours by the encoder).
pub fn write_gif(out: impl Write, frames: &[Figure], delay: u16) -> Result<(), String> {
    let first = frames.first().ok_or("no frame to write")?;
    let size = |v: u32| u16::try_from(v).map_err(|_| format!("frame size {v} is too large for a GIF"));
    let mut encoder = gif::Encoder::new(out, size(first.width)?, size(first.height)?, &[]).map_err(|e| e.to_string())?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(|e| e.to_string())?;
    for figure in frames {
        let mut frame = gif::Frame::from_rgb_speed(size(figure.width)?, size(figure.height)?, &figure.rgb, 10);
        frame.delay = delay;
        encoder.write_frame(&frame).map_err(|e| e.to_string())?;
    }
    Ok(())
}
