//! Conversions between `f64` and the 128-bit integers of a pool's exact rating sum
//! ([`crate::pool`]'s `RatingSum`), written with 64-bit operations only.
//!
//! Rust's `as` casts between `f64` and `i128` compile to calls into the compiler's runtime
//! library (`__fixdfti`, `__floattidf`) on ARM64 and WebAssembly. The static libraries
//! shipped for iOS and WebGL leave that library out (it would clash with any other Rust
//! library in the same app), so the engine must not need it. These functions give exactly
//! what the casts give (tested against them bit for bit), from exact integer arithmetic and
//! the 64-bit conversions every target has as instructions.

/// `x as i128`: toward zero, saturating, NaN to 0.
#[inline]
pub(crate) fn f64_to_i128(x: f64) -> i128 {
    if x.is_nan() {
        return 0;
    }
    if x.abs() < 9.0e18 {
        // |x| < 2^63: one hardware conversion.
        return i128::from(x as i64);
    }
    let bits = x.to_bits();
    // x = mantissa * 2^exponent, with |x| >= 2^63 so exponent >= 11: an integer.
    let exponent = i32::try_from((bits >> 52) & 0x7ff).unwrap_or(0) - 1075;
    if exponent > 127 - 53 {
        return if x < 0.0 { i128::MIN } else { i128::MAX };
    }
    let mantissa = i128::from((bits & ((1u64 << 52) - 1)) | (1u64 << 52));
    let magnitude = mantissa << exponent;
    if x < 0.0 {
        -magnitude
    } else {
        magnitude
    }
}

/// `v as f64`: rounded to nearest, ties to even.
#[inline]
pub(crate) fn i128_to_f64(v: i128) -> f64 {
    if let Ok(small) = i64::try_from(v) {
        return small as f64;
    }
    let magnitude = v.unsigned_abs();
    // Keep the 64 leading bits; any bit below them only says "a little more than that",
    // which a set lowest bit says as well (it lies far below the rounding position), so
    // the one rounding of the 64-bit conversion is the correct rounding of the whole.
    let shift = 64 - magnitude.leading_zeros();
    let mut leading = u64::try_from(magnitude >> shift).unwrap_or(u64::MAX);
    if magnitude & ((1u128 << shift) - 1) != 0 {
        leading |= 1;
    }
    // 2^shift, exactly (shift <= 64).
    let scale = f64::from_bits(u64::from(1023 + shift) << 52);
    let value = leading as f64 * scale;
    if v < 0 {
        -value
    } else {
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edges_match_the_casts() {
        let floats = [
            0.0,
            -0.0,
            1.5,
            -1.5,
            9.0e18,
            -9.0e18,
            9.3e18,
            2f64.powi(63),
            -(2f64.powi(63)),
            2f64.powi(64),
            2f64.powi(95) * 1.75,
            -(2f64.powi(100)),
            2f64.powi(126),
            2f64.powi(127),
            -(2f64.powi(127)),
            2f64.powi(128),
            f64::MAX,
            f64::MIN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        for x in floats {
            assert_eq!(f64_to_i128(x), x as i128, "{x:e}");
        }
        let integers = [
            0i128,
            1,
            -1,
            i128::from(i64::MAX),
            i128::from(i64::MIN),
            i128::from(i64::MAX) + 1,
            i128::from(i64::MIN) - 1,
            i128::MAX,
            i128::MIN,
            i128::MAX - 1,
            i128::MIN + 1,
            (1 << 100) + (1 << 47),
            (1 << 100) + (1 << 47) + 1,
            (1 << 100) + (3 << 47),
            -((1 << 70) + (1 << 17)),
            (1 << 64) + 1,
            (1 << 64) - 1,
        ];
        for v in integers {
            assert_eq!(i128_to_f64(v).to_bits(), (v as f64).to_bits(), "{v}");
        }
    }

    proptest! {
        #[test]
        fn any_float_converts_as_the_cast(bits in any::<u64>()) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(f64_to_i128(x), x as i128);
        }

        #[test]
        fn any_integer_converts_as_the_cast(high in any::<i64>(), low in any::<u64>(), shift in 0u32..64) {
            let v = ((i128::from(high) << 64) | i128::from(low)) >> shift;
            prop_assert_eq!(i128_to_f64(v).to_bits(), (v as f64).to_bits());
        }
    }
}
