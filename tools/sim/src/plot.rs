//! A small raster canvas for the tool's charts: indexed colours (so the same frames make a
//! PNG or a GIF), lines, points and a built-in 3x5 pixel font for labels. No font files,
//! no plotting library.

use std::io::Write;

/// The palette: index → RGB.
pub const PALETTE: [[u8; 3]; 12] = [
    [255, 255, 255], // 0 background
    [30, 30, 30],    // 1 axes and text
    [200, 200, 200], // 2 grid
    [140, 140, 140], // 3 reference line
    [205, 127, 50],  // 4 league 0 (bronze)
    [150, 150, 165], // 5 league 1 (silver)
    [212, 175, 55],  // 6 league 2 (gold)
    [70, 160, 200],  // 7 league 3 (platinum)
    [120, 60, 170],  // 8 league 4+
    [40, 90, 200],   // 9 series
    [220, 50, 50],   // 10 highlight
    [60, 160, 80],   // 11 extra
];

pub const BACKGROUND: u8 = 0;
pub const INK: u8 = 1;
pub const GRID: u8 = 2;
pub const REFERENCE: u8 = 3;
pub const SERIES: u8 = 9;
pub const HIGHLIGHT: u8 = 10;

/// Colour of league `index`.
pub fn league_colour(index: usize) -> u8 {
    4 + index.min(4) as u8
}

pub struct Canvas {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

/// 3x5 glyphs, rows top to bottom, 3 bits each (bit 2 = left column).
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 3, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 2, 2, 2],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        '.' => [0, 0, 0, 0, 2],
        ',' => [0, 0, 0, 2, 4],
        '-' => [0, 0, 7, 0, 0],
        '+' => [0, 2, 7, 2, 0],
        ':' => [0, 2, 0, 2, 0],
        '=' => [0, 7, 0, 7, 0],
        '(' => [2, 4, 4, 4, 2],
        ')' => [2, 1, 1, 1, 2],
        '/' => [1, 1, 2, 4, 4],
        '%' => [5, 1, 2, 4, 5],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        _ => [0, 0, 0, 0, 0],
    }
}

impl Canvas {
    pub fn new(width: usize, height: usize) -> Self {
        Self { width, height, pixels: vec![BACKGROUND; width * height] }
    }

    pub fn set(&mut self, x: i64, y: i64, colour: u8) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            self.pixels[y as usize * self.width + x as usize] = colour;
        }
    }

    pub fn line(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64), colour: u8) {
        let (dx, dy) = ((x1 - x0).abs(), -(y1 - y0).abs());
        let (sx, sy) = (if x0 < x1 { 1 } else { -1 }, if y0 < y1 { 1 } else { -1 });
        let (mut x, mut y, mut error) = (x0, y0, dx + dy);
        loop {
            self.set(x, y, colour);
            if x == x1 && y == y1 {
                break;
            }
            let e2 = 2 * error;
            if e2 >= dy {
                error += dy;
                x += sx;
            }
            if e2 <= dx {
                error += dx;
                y += sy;
            }
        }
    }

    pub fn dot(&mut self, x: i64, y: i64, radius: i64, colour: u8) {
        for dy in -radius..=radius {
            for dx in -radius..=radius {
                if dx * dx + dy * dy <= radius * radius + radius {
                    self.set(x + dx, y + dy, colour);
                }
            }
        }
    }

    /// Text at `(x, y)` (top left), glyphs scaled by `scale`.
    pub fn text(&mut self, x: i64, y: i64, text: &str, scale: i64, colour: u8) {
        for (i, c) in text.chars().enumerate() {
            let rows = glyph(c);
            for (row, bits) in rows.iter().enumerate() {
                for column in 0..3 {
                    if bits & (4 >> column) != 0 {
                        for sy in 0..scale {
                            for sx in 0..scale {
                                self.set(x + (i as i64 * 4 + column) * scale + sx, y + row as i64 * scale + sy, colour);
                            }
                        }
                    }
                }
            }
        }
    }

    pub fn text_width(text: &str, scale: i64) -> i64 {
        text.chars().count() as i64 * 4 * scale - scale
    }

    pub fn write_png(&self, out: impl Write) -> std::io::Result<()> {
        let mut encoder = png::Encoder::new(out, self.width as u32, self.height as u32);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(PALETTE.concat());
        let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
        writer.write_image_data(&self.pixels).map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)
    }
}

/// "Nice" tick values covering `[low, high]`.
pub fn ticks(low: f64, high: f64, wanted: usize) -> Vec<f64> {
    let span = (high - low).max(1e-9);
    let raw = span / wanted.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|s| span / s <= wanted as f64).unwrap_or(10.0 * magnitude);
    let mut tick = (low / step).ceil() * step;
    let mut out = Vec::new();
    while tick <= high + step * 1e-9 {
        out.push(if tick.abs() < step * 1e-9 { 0.0 } else { tick });
        tick += step;
    }
    out
}

fn label(value: f64) -> String {
    if value.abs() >= 100.0 || value.fract() == 0.0 {
        format!("{value:.0}")
    } else if value.abs() >= 1.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.3}")
    }
}

/// A chart area with data ranges, axes, grid and labels.
pub struct Chart {
    pub canvas: Canvas,
    left: i64,
    top: i64,
    right: i64,
    bottom: i64,
    x_range: (f64, f64),
    y_range: (f64, f64),
}

impl Chart {
    pub fn new(width: usize, height: usize, title: &str, x_label: &str, y_label: &str, x_range: (f64, f64), y_range: (f64, f64)) -> Self {
        let mut chart = Self {
            canvas: Canvas::new(width, height),
            left: 70,
            top: 40,
            right: width as i64 - 20,
            bottom: height as i64 - 50,
            x_range,
            y_range,
        };
        chart.canvas.text(chart.left, 12, title, 2, INK);
        for x in ticks(x_range.0, x_range.1, 8) {
            let px = chart.px(x);
            chart.canvas.line((px, chart.top), (px, chart.bottom), GRID);
            let text = label(x);
            chart.canvas.text(px - Canvas::text_width(&text, 2) / 2, chart.bottom + 8, &text, 2, INK);
        }
        for y in ticks(y_range.0, y_range.1, 8) {
            let py = chart.py(y);
            chart.canvas.line((chart.left, py), (chart.right, py), GRID);
            let text = label(y);
            chart.canvas.text(chart.left - 8 - Canvas::text_width(&text, 2), py - 5, &text, 2, INK);
        }
        let (left, top, right, bottom) = (chart.left, chart.top, chart.right, chart.bottom);
        chart.canvas.line((left, bottom), (right, bottom), INK);
        chart.canvas.line((left, top), (left, bottom), INK);
        chart.canvas.text(right - Canvas::text_width(x_label, 2), bottom + 30, x_label, 2, INK);
        chart.canvas.text(4, top - 24 + 10, y_label, 2, INK);
        chart
    }

    pub fn px(&self, x: f64) -> i64 {
        let t = (x - self.x_range.0) / (self.x_range.1 - self.x_range.0);
        self.left + (t * (self.right - self.left) as f64).round() as i64
    }

    pub fn py(&self, y: f64) -> i64 {
        let t = (y - self.y_range.0) / (self.y_range.1 - self.y_range.0);
        self.bottom - (t * (self.bottom - self.top) as f64).round() as i64
    }

    pub fn inside(&self, x: f64, y: f64) -> bool {
        (self.x_range.0..=self.x_range.1).contains(&x) && (self.y_range.0..=self.y_range.1).contains(&y)
    }

    pub fn line(&mut self, from: (f64, f64), to: (f64, f64), colour: u8) {
        let (a, b) = ((self.px(from.0), self.py(from.1)), (self.px(to.0), self.py(to.1)));
        self.canvas.line(a, b, colour);
    }

    pub fn point(&mut self, x: f64, y: f64, radius: i64, colour: u8) {
        if self.inside(x, y) {
            let (px, py) = (self.px(x), self.py(y));
            self.canvas.dot(px, py, radius, colour);
        }
    }
}

/// Writes frames as an animated GIF (the palette of [`PALETTE`]), `delay` in 1/100 s.
pub fn write_gif(out: impl Write, frames: &[Canvas], delay: u16) -> Result<(), String> {
    let first = frames.first().ok_or("no frame to write")?;
    let mut encoder = gif::Encoder::new(out, first.width as u16, first.height as u16, &PALETTE.concat()).map_err(|e| e.to_string())?;
    encoder.set_repeat(gif::Repeat::Infinite).map_err(|e| e.to_string())?;
    for canvas in frames {
        let mut frame = gif::Frame::from_indexed_pixels(canvas.width as u16, canvas.height as u16, canvas.pixels.clone(), None);
        frame.delay = delay;
        encoder.write_frame(&frame).map_err(|e| e.to_string())?;
    }
    Ok(())
}
