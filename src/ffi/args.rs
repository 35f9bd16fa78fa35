//! Shared argument checks for the exported functions: NULL pointers, lengths, numbers,
//! text, overlapping buffers, and allocations a caller sizes. Every exported function goes
//! through these instead of checking by hand.
//!
//! Each returns the `FfiError` (code and message naming the argument) described in its
//! first line. The order every function follows: lengths, then the shapes that bound what
//! will be read (team sizes, entrant counts, offsets), then NULL pointers and the overlap
//! of all its caller memory ([`check_disjoint`], before any reference to that memory is
//! made), and only then copies, each reserved with [`reserve`].
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
    usize::try_from(len).map_err(|_| FfiError::new(EloResult::InvalidLength, format!("{name} must not be negative (got {len})")))
}

/// Borrows `len` elements at `ptr`. NULL is accepted only when `len` is 0; a length no
/// array can have (more than `isize::MAX` bytes) is `ELO_RESULT_INVALID_LENGTH`.
///
/// # Safety
/// A non-NULL `ptr` must be valid for `len` reads of `T`.
pub unsafe fn arg_slice<'a, T>(ptr: *const T, len: usize, name: &str) -> Result<&'a [T], FfiError> {
    if len == 0 {
        return Ok(&[]);
    }
    check_array_size::<T>(len, name)?;
    if ptr.is_null() {
        return Err(null_pointer(name));
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Mutably borrows `len` elements at `ptr`. NULL is accepted only when `len` is 0; a
/// length no array can have is `ELO_RESULT_INVALID_LENGTH`.
///
/// # Safety
/// A non-NULL `ptr` must be valid for `len` reads and writes of `T`, not aliased.
pub unsafe fn arg_slice_mut<'a, T>(ptr: *mut T, len: usize, name: &str) -> Result<&'a mut [T], FfiError> {
    if len == 0 {
        return Ok(&mut []);
    }
    check_array_size::<T>(len, name)?;
    if ptr.is_null() {
        return Err(null_pointer(name));
    }
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Refuses a length whose array would span more than `isize::MAX` bytes (possible on
/// 32-bit targets, where no such array exists).
fn check_array_size<T>(len: usize, name: &str) -> Result<(), FfiError> {
    match len.checked_mul(std::mem::size_of::<T>()) {
        Some(bytes) if isize::try_from(bytes).is_ok() => Ok(()),
        _ => Err(FfiError::new(EloResult::InvalidLength, format!("{name}: {len} elements do not fit in this machine's memory"))),
    }
}

/// An empty vector with room for `len` elements, for a copy whose size the caller's
/// arguments decide: when the memory cannot be had the call fails with
/// `ELO_RESULT_INVALID_LENGTH` naming `what`, instead of aborting the process (as a plain
/// `Vec` allocation would). Callers check every shape that bounds `len` first.
pub fn reserve<T>(len: usize, what: &str) -> Result<Vec<T>, FfiError> {
    let mut out = Vec::new();
    out.try_reserve_exact(len).map_err(|error| FfiError::new(EloResult::InvalidLength, format!("{what}: the memory for {len} elements cannot be had ({error})")))?;
    Ok(out)
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
    let text = std::str::from_utf8(bytes).map_err(|e| FfiError::new(EloResult::InvalidUtf8, format!("{name} is not valid UTF-8: {e}")))?;
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
/// length in bytes (without the NUL). `out_len` must not lie inside the buffer.
///
/// # Safety
/// A non-NULL `buffer` must be valid for `buffer_len` bytes of writes; a non-NULL
/// `out_len` for one write.
pub unsafe fn write_text(text: &str, buffer: *mut c_char, buffer_len: i32, out_len: *mut i32) -> Result<(), FfiError> {
    let capacity = arg_len(buffer_len, "buffer_len")?;
    check_disjoint(&[("buffer", Region::of(buffer.cast_const(), capacity)), ("out_len", Region::of(out_len.cast_const(), 1))], &[])?;
    let out_len = unsafe { arg_mut(out_len, "out_len")? };
    let needed = i32::try_from(text.len()).map_err(|_| FfiError::new(EloResult::BufferTooSmall, "text longer than 2^31 bytes"))?;
    *out_len = needed;
    if capacity < text.len() + 1 {
        return Err(FfiError::new(EloResult::BufferTooSmall, format!("buffer_len is {capacity} but {} bytes are needed (text plus NUL)", text.len() + 1)));
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
    /// The region of `len` elements at `ptr`; a NULL pointer spans no caller memory.
    #[must_use]
    pub fn of<T>(ptr: *const T, len: usize) -> Self {
        let bytes = if ptr.is_null() { 0 } else { len.saturating_mul(std::mem::size_of::<T>()) };
        Self { start: ptr as usize, bytes }
    }

    /// The region of one value at `ptr` (a count or another single output).
    #[must_use]
    pub fn one<T>(ptr: *const T) -> Self {
        Self::of(ptr, 1)
    }

    /// Whether the two regions share a byte.
    #[must_use]
    pub fn overlaps(self, other: Self) -> bool {
        self.bytes > 0 && other.bytes > 0 && self.start < other.start.saturating_add(other.bytes) && other.start < self.start.saturating_add(self.bytes)
    }
}

/// Refuses (`ELO_RESULT_OVERLAPPING_BUFFERS`, naming both) an output that shares a byte
/// with another output or with an input: every function checks all the caller memory it
/// writes this way, count outputs included, before it makes any reference to it. NULL and
/// empty arrays span nothing; an array updated in place is an output only.
pub fn check_disjoint(outputs: &[(&str, Region)], inputs: &[(&str, Region)]) -> Result<(), FfiError> {
    for (i, (name, region)) in outputs.iter().enumerate() {
        if let Some((other, _)) = outputs[..i].iter().chain(inputs).find(|(_, other)| region.overlaps(*other)) {
            return Err(FfiError::new(
                EloResult::OverlappingBuffers,
                format!("{name} overlaps {other}: every output must be memory of its own, apart from the other outputs and the inputs"),
            ));
        }
    }
    Ok(())
}

fn null_pointer(name: &str) -> FfiError {
    FfiError::new(EloResult::NullPointer, format!("{name} must not be NULL"))
}
