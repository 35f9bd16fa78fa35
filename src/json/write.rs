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
        if !text.bytes().any(|byte| byte < 0x20 || byte == b'"' || byte == b'\\') {
            self.out.push_str(text);
            self.out.push('"');
            return;
        }
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
    pub(crate) fn whole(&mut self, mut number: u64) {
        let (mut digits, mut start) = ([0_u8; 20], 20);
        loop {
            start -= 1;
            digits[start] = b'0' + (number % 10) as u8;
            number /= 10;
            if number == 0 {
                break;
            }
        }
        self.out.push_str(std::str::from_utf8(&digits[start..]).unwrap_or("0"));
    }

    /// Writes an `f64` (`null` when not finite, as `serde_json` does).
    #[inline(never)]
    pub(crate) fn f64(&mut self, number: f64) {
        if number.is_finite() {
            self.scratch.clear();
            let _ = write!(self.scratch, "{number:e}");
            self.number(number, false);
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
            self.number(f64::from(number), true);
        } else {
            self.null();
        }
    }

    /// Lays out the shortest digits in `scratch` (`-d.ddde-x`, from `{:e}`) of `value` (an
    /// `f32`'s when `single`).
    fn number(&mut self, value: f64, single: bool) {
        // At most 17 significant digits (an f64's shortest form), 9 for an f32.
        let (mut digits, mut count, mut exponent, mut negative_exponent) = ([0_u8; 20], 0, 0_i32, false);
        let mut in_exponent = false;
        for byte in self.scratch.bytes() {
            match byte {
                b'-' if !in_exponent => self.out.push('-'),
                b'-' => negative_exponent = true,
                b'e' => in_exponent = true,
                b'0'..=b'9' if in_exponent => exponent = exponent * 10 + i32::from(byte - b'0'),
                b'0'..=b'9' if count < digits.len() => {
                    digits[count] = byte;
                    count += 1;
                }
                _ => {}
            }
        }
        if negative_exponent {
            exponent = -exponent;
        }
        if digits[..count] == *b"0" {
            self.out.push_str("0.0");
            return;
        }
        let digits = &mut digits[..count];
        let count = i32::try_from(count).unwrap_or(i32::MAX);
        // A tie: the value is exactly halfway between these digits and the ones below, and
        // those read back to it too (not so below a power of two, where the gap to the
        // next value down is half as wide).
        if let Some(&last) = digits.last().filter(|last| (**last - b'0') % 2 == 1) {
            let shortest = digits.iter().try_fold(0_u64, |n, &d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')));
            let halfway = shortest.and_then(|n| n.checked_mul(10)).map(|n| n - 5);
            if halfway.is_some_and(|halfway| equals_decimal(value.abs(), halfway, exponent - count)) {
                let below = format!("{}e{}", shortest.unwrap_or(0) - 1, exponent - count + 1);
                let reads_back = if single { below.parse::<f32>().map(f64::from) } else { below.parse::<f64>() };
                if reads_back == Ok(value.abs()) {
                    digits[digits.len() - 1] = last - 1;
                }
            }
        }
        let digits = std::str::from_utf8(digits).unwrap_or("0");
        let zeros = |out: &mut String, n: i32| out.extend(std::iter::repeat_n('0', usize::try_from(n).unwrap_or(0)));
        if if single { F32_PLAIN } else { F64_PLAIN }.contains(&exponent) {
            if count - 1 <= exponent {
                // 1234e7: 12340000000.0
                self.out.push_str(digits);
                zeros(&mut self.out, exponent - (count - 1));
                self.out.push_str(".0");
            } else if exponent >= 0 {
                // 1234e-2: 12.34
                let (whole, fraction) = digits.split_at(usize::try_from(exponent + 1).unwrap_or(0).min(digits.len()));
                self.out.push_str(whole);
                self.out.push('.');
                self.out.push_str(fraction);
            } else {
                // 1234e-6: 0.001234
                self.out.push_str("0.");
                zeros(&mut self.out, -exponent - 1);
                self.out.push_str(digits);
            }
        } else {
            // 1234e30: 1.234e+33
            let (first, rest) = digits.split_at(1);
            self.out.push_str(first);
            if !rest.is_empty() {
                self.out.push('.');
                self.out.push_str(rest);
            }
            self.out.push_str(if exponent < 0 { "e-" } else { "e+" });
            self.whole(u64::from(exponent.unsigned_abs()));
        }
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
        // Every power of two: the gap below is half the gap above (2^-24 is a tie whose
        // even neighbour does not read back).
        let powers_of_two = (0..52).map(|bit| 1_u64 << bit).chain((1..2047).map(|biased| biased << 52));
        for value in powers_of_two.map(f64::from_bits) {
            assert_eq!(written_f64(value), serde_json::to_string(&value).unwrap(), "{value:e}");
            assert_eq!(written_f64(-value), serde_json::to_string(&-value).unwrap(), "{value:e}");
        }
        for value in (0..23).map(|bit| 1_u32 << bit).chain((1..255).map(|biased| biased << 23)).map(f32::from_bits) {
            assert_eq!(written_f32(value), serde_json::to_string(&value).unwrap(), "{value:e}");
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
