//! The one panic boundary every exported function runs inside.
//!
//! A panic unwinding out of an `extern "C"` function aborts the process, and inside Unity
//! that process is the Editor. `ffi_boundary!` catches it, records a message for
//! `elo_last_error_message`, and returns `ELO_RESULT_PANIC` (or a documented fallback
//! value for functions that do not return a result code).

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::error::{record_error, EloResult, FfiError};

/// Runs an exported function's body inside the panic boundary.
///
/// * `ffi_boundary!(result => { ... })`: the body returns `Result<(), FfiError>`; errors
///   are recorded for `elo_last_error_message` and their code returned.
/// * `ffi_boundary!(quiet => { ... })`: the same, without recording (for the functions
///   that read the last error, so that a too-small buffer does not overwrite it).
/// * `ffi_boundary!(value FALLBACK => { ... })`: the body returns a plain value;
///   a panic returns `FALLBACK`.
macro_rules! ffi_boundary {
    (result => $body:block) => {
        $crate::ffi::panic::guard_result(true, || -> Result<(), $crate::ffi::error::FfiError> { $body })
    };
    (quiet => $body:block) => {
        $crate::ffi::panic::guard_result(false, || -> Result<(), $crate::ffi::error::FfiError> { $body })
    };
    (value $fallback:expr => $body:block) => {
        $crate::ffi::panic::guard_value($fallback, || $body)
    };
}

/// Implementation of `ffi_boundary!(result …)`; not for direct use.
#[doc(hidden)]
pub fn guard_result(record: bool, body: impl FnOnce() -> Result<(), FfiError>) -> EloResult {
    let error = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return EloResult::Ok,
        Ok(Err(error)) => error,
        Err(payload) => panic_error(payload.as_ref()),
    };
    let code = error.code;
    if record || code == EloResult::Panic {
        record_error(error);
    }
    code
}

/// Implementation of `ffi_boundary!(value …)`; not for direct use.
#[doc(hidden)]
pub fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        record_error(panic_error(payload.as_ref()));
        fallback
    })
}

fn panic_error(payload: &(dyn Any + Send)) -> FfiError {
    let detail =
        payload.downcast_ref::<&str>().map(|s| (*s).to_owned()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap_or_else(|| "unknown panic payload".to_owned());
    FfiError::new(EloResult::Panic, format!("internal error (please report it): {detail}"))
}
