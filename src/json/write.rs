//! The writer: JSON text as `serde_json` writes it, byte for byte, compact or pretty (two
//! spaces), without serde's generic code.
//!
//! Numbers are written in their shortest form that reads back to the same bits, laid out
//! as `serde_json` lays them out: `1500.0`, `0.001`, `1e-7`, `2.5e+16`. The digits come
//! from the standard library's shortest formatting (`{:e}`); where two shortest forms are
//! equally near the value, `serde_json` takes the one with the even last digit and the
//! standard library the one above, so [`Writer::number`] checks for that exact tie.
//! The unit tests compare the output with `serde_json`'s on millions of values.
//!
//! Writing is not on any hot path (a save, a configuration), so the writer's steps are
//! never inlined: each call site stays a call, and the per-type writers stay small.

use std::fmt::Write as _;
use std::ops::RangeInclusive;

/// The exponents (of the first digit) `serde_json` writes an `f64` without an exponent for.
const F64_PLAIN: RangeInclusive<i32> = -5..=15;
/// The same for an `f32`.
const F32_PLAIN: RangeInclusive<i32> = -6..=12;

/// JSON text being written.
pub(crate) struct Writer {
    out: String,
    pretty: bool,
    /// Nesting depth (the indentation of pretty output).
    depth: usize,
    /// Whether the object or list being written has no member yet.
    empty: bool,
    /// Room for a number's digits.
    scratch: String,
}

impl Writer {
    /// A writer of compact text, or of pretty text (`serde_json::to_string_pretty`).
    pub(crate) fn new(pretty: bool) -> Self {
        Self { out: String::new(), pretty, depth: 0, empty: true, scratch: String::new() }
    }

    /// The text written.
    pub(crate) fn finish(self) -> String {
        self.out
    }

    fn newline(&mut self) {
        if self.pretty {
            self.out.push('\n');
            for _ in 0..self.depth {
                self.out.push_str("  ");
            }
        }
    }

    /// Opens an object (`{`) or a list (`[`).
    #[inline(never)]
    pub(crate) fn open(&mut self, bracket: char) {
        self.out.push(bracket);
        self.depth += 1;
        self.empty = true;
    }

    /// Closes the object (`}`) or list (`]`) opened last.
    #[inline(never)]
    pub(crate) fn close(&mut self, bracket: char) {
        self.depth -= 1;
        if !self.empty {
            self.newline();
        }
        self.out.push(bracket);
        self.empty = false;
    }

    /// Starts the next item of a list.
    #[inline(never)]
    pub(crate) fn item(&mut self) {
        if !self.empty {
            self.out.push(',');
        }
        self.newline();
        self.empty = false;
    }

    /// Starts the member `name` of an object; its value comes next.
    #[inline(never)]
    pub(crate) fn key(&mut self, name: &str) {
        self.item();
        self.string(name);
        self.out.push_str(if self.pretty { ": " } else { ":" });
    }

    /// Writes a string, escaped as `serde_json` escapes it.
    #[inline(never)]
    pub(crate) fn string(&mut self, text: &str) {
        self.out.push('"');
        for c in text.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{0}'..='\u{1f}' => {
                    let _ = write!(self.out, "\\u{:04x}", u32::from(c));
                }
                _ => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    /// Writes `true` or `false`.
    #[inline(never)]
    pub(crate) fn bool(&mut self, flag: bool) {
        self.out.push_str(if flag { "true" } else { "false" });
    }

    /// Writes `null`.
    #[inline(never)]
    pub(crate) fn null(&mut self) {
        self.out.push_str("null");
    }

    /// Writes a whole number.
    #[inline(never)]
    pub(crate) fn whole(&mut self, number: u64) {
        let _ = write!(self.out, "{number}");
    }

    /// Writes an `f64` (`null` when not finite, as `serde_json` does).
    #[inline(never)]
    pub(crate) fn f64(&mut self, number: f64) {
        if number.is_finite() {
            self.scratch.clear();
            let _ = write!(self.scratch, "{number:e}");
            self.number(number, F64_PLAIN);
        } else {
            self.null();
        }
    }

    /// Writes an `f32` in its shortest form as an `f32` (`null` when not finite).
    #[inline(never)]
    pub(crate) fn f32(&mut self, number: f32) {
        if number.is_finite() {
            self.scratch.clear();
            let _ = write!(self.scratch, "{number:e}");
            self.number(f64::from(number), F32_PLAIN);
        } else {
            self.null();
        }
    }

    /// Lays out the shortest digits in `scratch` (`-d.ddde-x`, from `{:e}`) of `value`.
    fn number(&mut self, value: f64, plain: RangeInclusive<i32>) {
        let text = std::mem::take(&mut self.scratch);
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        let mantissa = mantissa.strip_prefix('-').map_or(mantissa, |digits| {
            self.out.push('-');
            digits
        });
        let mut digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
        if digits == b"0" {
            self.out.push_str("0.0");
            self.scratch = text;
            return;
        }
        let count = i32::try_from(digits.len()).unwrap_or(i32::MAX);
        // A tie: the value is exactly halfway between these digits and the ones below.
        if let Some(last) = digits.last_mut().filter(|last| (**last - b'0') % 2 == 1) {
            let below = *last - 1;
            let halfway = digits[..digits.len() - 1].iter().chain([&below, &b'5']).fold(0_u64, |n, &d| n.wrapping_mul(10).wrapping_add(u64::from(d - b'0')));
            if digits.len() < 19 && equals_decimal(value.abs(), halfway, exponent - count) {
                if let Some(last) = digits.last_mut() {
                    *last = below;
                }
            }
        }
        let digits = std::str::from_utf8(&digits).unwrap_or("0");
        if plain.contains(&exponent) {
            if count - 1 <= exponent {
                // 1234e7: 12340000000.0
                self.out.push_str(digits);
                self.out.extend(std::iter::repeat_n('0', usize::try_from(exponent - (count - 1)).unwrap_or(0)));
                self.out.push_str(".0");
            } else if exponent >= 0 {
                // 1234e-2: 12.34
                let (whole, fraction) = digits.split_at(usize::try_from(exponent + 1).unwrap_or(0).min(digits.len()));
                let _ = write!(self.out, "{whole}.{fraction}");
            } else {
                // 1234e-6: 0.001234
                self.out.push_str("0.");
                self.out.extend(std::iter::repeat_n('0', usize::try_from(-exponent - 1).unwrap_or(0)));
                self.out.push_str(digits);
            }
        } else {
            // 1234e30: 1.234e+33
            let (first, rest) = digits.split_at(1);
            let point = if rest.is_empty() { "" } else { "." };
            let sign = if exponent < 0 { '-' } else { '+' };
            let _ = write!(self.out, "{first}{point}{rest}e{sign}{}", exponent.unsigned_abs());
        }
        self.scratch = text;
    }
}

/// Whether the finite `value` (not negative) is exactly `n` × 10^`q`.
fn equals_decimal(value: f64, n: u64, q: i32) -> bool {
    // value = m × 2^e with m odd; n × 10^q = odd(n) × 5^q × 2^(q + twos(n)).
    let bits = value.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (m, e) = if biased == 0 { (fraction, -1074) } else { (fraction | 1 << 52, biased - 1075) };
    if m == 0 || n == 0 {
        return m == n;
    }
    let (m, e) = (m >> m.trailing_zeros(), e + m.trailing_zeros().cast_signed());
    let (odd, twos) = (u128::from(n >> n.trailing_zeros()), q + n.trailing_zeros().cast_signed());
    let Some(fives) = 5_u128.checked_pow(q.unsigned_abs()) else { return false };
    e == twos && if q >= 0 { odd.checked_mul(fives) == Some(u128::from(m)) } else { u128::from(m).checked_mul(fives) == Some(odd) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SplitMix64`, for reproducible values.
    fn values() -> impl Iterator<Item = u64> {
        let mut state = 0x1234_5678_9abc_def0_u64;
        std::iter::repeat_with(move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
    }

    fn written_f64(value: f64) -> String {
        let mut writer = Writer::new(false);
        writer.f64(value);
        writer.finish()
    }

    fn written_f32(value: f32) -> String {
        let mut writer = Writer::new(false);
        writer.f32(value);
        writer.finish()
    }

    /// Numbers are written as `serde_json` writes them: any bits, decimal-looking values,
    /// and values exactly halfway between two shortest forms (fractions of 1/4 and 1/8 at
    /// magnitudes where they need more digits than the shortest form has).
    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        let quarter = [0.25, 0.75, 0.5, 0.125];
        for (i, bits) in values().take(400_000).enumerate() {
            let f64s = [
                f64::from_bits(bits),
                (bits % 100_000_000) as f64 / [1.0, 10.0, 1e3, 1e7, 1e12, 1e16, 1e23][i % 7],
                ((bits % (1 << 53)) as f64 + quarter[i % 4]) * [1.0, 8.0, 1024.0, 1e-3, 3e200, 1e-310][i % 6],
            ];
            for value in f64s {
                assert_eq!(written_f64(value), serde_json::to_string(&value).unwrap(), "{value:e}");
            }
            let f32s = [f32::from_bits(bits as u32), ((bits % (1 << 24)) as f32 + quarter[i % 4] as f32) * [1.0, 8.0, 1024.0, 1e-3, 3e20][i % 5]];
            for value in f32s {
                assert_eq!(written_f32(value), serde_json::to_string(&value).unwrap(), "{value:e}");
            }
        }
        for value in [0.0, -0.0, 1.0, 1e15, 1e16, 1e-5, 1e-6, 5e-324, f64::MAX, f64::MIN_POSITIVE, 1500.0, f64::NAN, f64::INFINITY] {
            assert_eq!(written_f64(value), serde_json::to_string(&value).unwrap(), "{value:e}");
        }
        for value in [0.0, -0.0, 1e12, 1e13, 1e-6, 1e-7, f32::MAX, f32::MIN_POSITIVE, f32::from_bits(1), 2_127_058.0 + 0.25, f32::NEG_INFINITY] {
            assert_eq!(written_f32(value), serde_json::to_string(&value).unwrap(), "{value:e}");
        }
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let text: String = (0..0x80_u8).map(char::from).chain("é😀\u{7f}\u{2028}".chars()).collect();
        let mut writer = Writer::new(false);
        writer.string(&text);
        assert_eq!(writer.finish(), serde_json::to_string(&text).unwrap());
    }

    #[test]
    fn ties_are_found_exactly() {
        assert!(equals_decimal(2_127_058.25, 212_705_825, -2));
        assert!(!equals_decimal(2_127_058.25, 212_705_826, -2));
        assert!(equals_decimal(1e22, 1, 22));
        assert!(!equals_decimal(1e23, 1, 23), "1e23 is not a double");
        assert!(equals_decimal(0.0, 0, 0));
    }
}
