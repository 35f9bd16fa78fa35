//! Shared argument checks for the exported functions: NULL pointers, lengths, numbers,
//! text. Every exported function goes through these instead of checking by hand.
//!
//! Each returns the `FfiError` (code and message naming the argument) described in its
//! first line.
#![allow(clippy::missing_errors_doc, reason = "the module documentation describes the errors")]

use std::os::raw::c_char;

use super::error::{EloResult, FfiError};
use crate::error::check_rating;

/// Borrows `*ptr`, or fails with `ELO_RESULT_NULL_POINTER` naming the argument.
///
/// # Safety
/// A non-NULL `ptr` must point to a valid `T` that outlives the returned reference.
pub unsafe fn arg_ref<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, FfiError> {
    unsafe { ptr.as_ref() }.ok_or_else(|| null_pointer(name))
}

/// Mutably borrows `*ptr`, or fails with `ELO_RESULT_NULL_POINTER`.
///
/// # Safety
/// A non-NULL `ptr` must point to a valid `T`, not aliased for the reference's lifetime.
pub unsafe fn arg_mut<'a, T>(ptr: *mut T, name: &str) -> Result<&'a mut T, FfiError> {
    unsafe { ptr.as_mut() }.ok_or_else(|| null_pointer(name))
}

/// Checks a count or length: `ELO_RESULT_INVALID_LENGTH` when negative.
pub fn arg_len(len: i32, name: &str) -> Result<usize, FfiError> {
    usize::try_from(len).map_err(|_| {
        FfiError::new(EloResult::InvalidLength, format!("{name} must not be negative (got {len})"))
    })
}

/// Borrows `len` elements at `ptr`. NULL is accepted only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` must be valid for `len` reads of `T`.
pub unsafe fn arg_slice<'a, T>(ptr: *const T, len: usize, name: &str) -> Result<&'a [T], FfiError> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null_pointer(name));
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Mutably borrows `len` elements at `ptr`. NULL is accepted only when `len` is 0.
///
/// # Safety
/// A non-NULL `ptr` must be valid for `len` reads and writes of `T`, not aliased.
pub unsafe fn arg_slice_mut<'a, T>(ptr: *mut T, len: usize, name: &str) -> Result<&'a mut [T], FfiError> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(null_pointer(name));
    }
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Reads `len` bytes of UTF-8 text at `ptr`. A length that counts the C string's
/// terminating NUL is refused (`ELO_RESULT_INVALID_LENGTH`, naming the NUL): no text the
/// engine reads (JSON, a path) ends with one.
///
/// # Safety
/// As [`arg_slice`].
pub unsafe fn arg_utf8<'a>(ptr: *const c_char, len: i32, name: &str) -> Result<&'a str, FfiError> {
    let len = arg_len(len, &format!("{name}_len"))?;
    let bytes = unsafe { arg_slice(ptr.cast::<u8>(), len, name)? };
    let text = std::str::from_utf8(bytes)
        .map_err(|e| FfiError::new(EloResult::InvalidUtf8, format!("{name} is not valid UTF-8: {e}")))?;
    if text.ends_with('\0') {
        return Err(FfiError::new(
            EloResult::InvalidLength,
            format!("{name} ends with a NUL character: {name}_len ({len}) counts the terminating NUL of the C string; pass strlen({name}) instead"),
        ));
    }
    Ok(text)
}

/// Checks a rating: finite (`ELO_RESULT_NOT_FINITE`) and within `±MAX_RATING`
/// (`ELO_RESULT_OUT_OF_RANGE`), naming it otherwise.
pub fn arg_rating(value: f32, name: &str) -> Result<f32, FfiError> {
    Ok(check_rating(value, name)?)
}

/// Copies `text` plus a NUL into a caller buffer; `*out_len` always receives the text's
/// length in bytes (without the NUL).
///
/// # Safety
/// A non-NULL `buffer` must be valid for `buffer_len` bytes of writes.
pub unsafe fn write_text(text: &str, buffer: *mut c_char, buffer_len: i32, out_len: &mut i32) -> Result<(), FfiError> {
    let capacity = arg_len(buffer_len, "buffer_len")?;
    let needed = i32::try_from(text.len())
        .map_err(|_| FfiError::new(EloResult::BufferTooSmall, "text longer than 2^31 bytes"))?;
    *out_len = needed;
    if capacity < text.len() + 1 {
        return Err(FfiError::new(
            EloResult::BufferTooSmall,
            format!("buffer_len is {capacity} but {} bytes are needed (text plus NUL)", text.len() + 1),
        ));
    }
    let out = unsafe { arg_slice_mut(buffer.cast::<u8>(), capacity, "buffer")? };
    out[..text.len()].copy_from_slice(text.as_bytes());
    out[text.len()] = 0;
    Ok(())
}

/// The bytes an array of `len` elements at `ptr` spans, for the overlap checks.
#[derive(Debug, Clone, Copy)]
pub struct Region {
    start: usize,
    bytes: usize,
}

impl Region {
    /// The region of `len` elements at `ptr`.
    #[must_use]
    pub fn of<T>(ptr: *const T, len: usize) -> Self {
        Self { start: ptr as usize, bytes: len.saturating_mul(std::mem::size_of::<T>()) }
    }

    /// Whether the two regions share a byte.
    #[must_use]
    pub fn overlaps(self, other: Self) -> bool {
        self.bytes > 0 && other.bytes > 0 && self.start < other.start.saturating_add(other.bytes) && other.start < self.start.saturating_add(self.bytes)
    }
}

/// Whether two arrays of `len` elements overlap in memory.
pub fn overlaps<T>(a: *const T, b: *const T, len: usize) -> bool {
    Region::of(a, len).overlaps(Region::of(b, len))
}

fn null_pointer(name: &str) -> FfiError {
    FfiError::new(EloResult::NullPointer, format!("{name} must not be NULL"))
}
