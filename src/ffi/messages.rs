//! Reading error information through the C ABI: the last failure's code and message on
//! the calling thread, and each result code's fixed description.

use std::os::raw::c_char;

use super::args::write_text;
use super::error::{last_error, EloResult};

/// The code of the last failure on the calling thread, or `ELO_RESULT_OK` if no call on
/// this thread has failed yet. Successful calls do not reset it.
#[no_mangle]
pub extern "C" fn elo_last_error_code() -> EloResult {
    ffi_boundary!(value EloResult::Panic => {
        last_error().map_or(EloResult::Ok, |e| e.code)
    })
}

/// Copies the message of the last failure on the calling thread into `buffer` as
/// NUL-terminated UTF-8 (an empty string if no call has failed).
///
/// `*out_len` receives the message length in bytes, without the NUL, whether or not it
/// fits; the call returns `ELO_RESULT_BUFFER_TOO_SMALL` (and writes nothing to `buffer`)
/// when `buffer_len < *out_len + 1`. `buffer` may be NULL with `buffer_len` 0 to ask for
/// the length only. This function never replaces the stored message with its own
/// errors.
///
/// `out_len` must not lie inside `buffer` (`ELO_RESULT_OVERLAPPING_BUFFERS`).
///
/// # Safety
/// `buffer` must be valid for `buffer_len` bytes of writes; `out_len` must be valid for
/// one write.
#[no_mangle]
pub unsafe extern "C" fn elo_last_error_message(buffer: *mut c_char, buffer_len: i32, out_len: *mut i32) -> EloResult {
    ffi_boundary!(quiet => {
        let message = last_error().map(|e| e.message).unwrap_or_default();
        unsafe { write_text(&message, buffer, buffer_len, out_len) }
    })
}

/// Copies the fixed description of result code `code` into `buffer`, with the same
/// buffer rules as [`elo_last_error_message`]. A value that is not a result code gives
/// the text `unknown result code`.
///
/// # Safety
/// As [`elo_last_error_message`].
#[no_mangle]
pub unsafe extern "C" fn elo_result_description(code: u32, buffer: *mut c_char, buffer_len: i32, out_len: *mut i32) -> EloResult {
    ffi_boundary!(result => {
        let text = EloResult::from_u32(code).map_or("unknown result code", EloResult::description);
        unsafe { write_text(text, buffer, buffer_len, out_len) }
    })
}
