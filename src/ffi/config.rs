//! `EloConfig`: a validated rating configuration behind an opaque handle.

use std::os::raw::c_char;

use super::args::{arg_len, arg_mut, arg_ref, arg_utf8, check_disjoint, write_text, Region};
use crate::config::{Config, Rules};

/// An immutable, validated rating configuration. Create it with [`elo_config_new`] or
/// [`elo_config_from_json`], release it with [`elo_config_free`]. Safe to share between
/// threads.
pub struct EloConfig {
    pub(crate) rules: Rules,
}

impl EloConfig {
    fn boxed(rules: Rules) -> *mut Self {
        Box::into_raw(Box::new(Self { rules }))
    }
}

/// Creates a configuration with every default (logistic c = 400, K = 32, initial rating
/// 1500, no rounding) into `*out_config`.
///
/// # Safety
/// `out_config` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_config_new(out_config: *mut *mut EloConfig) -> super::EloResult {
    ffi_boundary!(result => {
        let out = unsafe { arg_mut(out_config, "out_config")? };
        *out = EloConfig::boxed(Rules::default());
        Ok(())
    })
}

/// Parses and validates `json_len` bytes of UTF-8 JSON (no NUL needed) into a new
/// configuration. Unknown fields (`ELO_RESULT_UNKNOWN_JSON_FIELD`), malformed JSON
/// (`ELO_RESULT_INVALID_JSON`) and out-of-range settings (`ELO_RESULT_INVALID_CONFIG`) are
/// refused with a message naming the field; `*out_config` is then left untouched.
///
/// # Safety
/// `json` must be valid for `json_len` bytes; `out_config` must be valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_config_from_json(json: *const c_char, json_len: i32, out_config: *mut *mut EloConfig) -> super::EloResult {
    ffi_boundary!(result => {
        let json_region = Region::of(json, arg_len(json_len, "json_len")?);
        check_disjoint(&[("out_config", Region::one(out_config.cast_const()))], &[("json", json_region)])?;
        let out = unsafe { arg_mut(out_config, "out_config")? };
        let text = unsafe { arg_utf8(json, json_len, "json")? };
        *out = EloConfig::boxed(Config::from_json(text)?);
        Ok(())
    })
}

/// Writes the configuration as JSON (every field written out) plus a NUL into `buffer`.
/// `*out_len` receives the JSON length in bytes without the NUL even when the buffer is
/// too small (`ELO_RESULT_BUFFER_TOO_SMALL`); pass NULL and 0 to ask for the length.
///
/// # Safety
/// `config` must be a live handle; `buffer` valid for `buffer_len` bytes; `out_len` for
/// one write.
#[no_mangle]
pub unsafe extern "C" fn elo_config_to_json(config: *const EloConfig, buffer: *mut c_char, buffer_len: i32, out_len: *mut i32) -> super::EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        unsafe { write_text(&config.rules.config().to_json(), buffer, buffer_len, out_len) }
    })
}

/// The number of leagues of the configuration into `*out_count`.
///
/// # Safety
/// `config` must be a live handle; `out_count` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_config_league_count(config: *const EloConfig, out_count: *mut i32) -> super::EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let out = unsafe { arg_mut(out_count, "out_count")? };
        *out = i32::try_from(config.rules.config().leagues.len()).unwrap_or(i32::MAX);
        Ok(())
    })
}

/// Copies the name of league `index` (0 = lowest) into `buffer` as NUL-terminated UTF-8,
/// with the buffer rules of `elo_last_error_message`: `*out_len` receives the name's
/// length in bytes without the NUL whether or not it fits, and the call returns
/// `ELO_RESULT_BUFFER_TOO_SMALL` (writing nothing to `buffer`) when `buffer_len` is less
/// than that plus one; pass NULL and 0 to ask for the length. An index outside
/// `0 .. elo_config_league_count` gives `ELO_RESULT_INDEX_OUT_OF_RANGE`, except league 0 of
/// a configuration without leagues (where `elo_pool_league_of` puts every player): its
/// name is empty.
///
/// # Safety
/// `config` must be a live handle; `buffer` valid for `buffer_len` bytes; `out_len` for
/// one write.
#[no_mangle]
pub unsafe extern "C" fn elo_config_league_name(config: *const EloConfig, index: i32, buffer: *mut c_char, buffer_len: i32, out_len: *mut i32) -> super::EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let out_len = unsafe { arg_mut(out_len, "out_len")? };
        let leagues = config.rules.config().leagues.as_slice();
        let name = match usize::try_from(index).ok().and_then(|i| leagues.get(i)) {
            Some(league) => league.name.as_str(),
            None if index == 0 => "",
            None => {
                return Err(super::error::FfiError::new(
                    super::EloResult::IndexOutOfRange,
                    format!("index {index} is not a league of the configuration (it has {}, indices from 0)", leagues.len()),
                ))
            }
        };
        unsafe { write_text(name, buffer, buffer_len, out_len) }
    })
}

/// The index of the league `rating` belongs to (0 = lowest; 0 also when no leagues are
/// configured) into `*out_index`.
///
/// # Safety
/// `config` must be a live handle; `out_index` valid for one write.
#[no_mangle]
pub unsafe extern "C" fn elo_config_league_of(config: *const EloConfig, rating: f32, out_index: *mut i32) -> super::EloResult {
    ffi_boundary!(result => {
        let config = unsafe { arg_ref(config, "config")? };
        let out = unsafe { arg_mut(out_index, "out_index")? };
        let rating = super::args::arg_rating(rating, "rating")?;
        *out = i32::try_from(config.rules.league_of(rating)).unwrap_or(i32::MAX);
        Ok(())
    })
}

/// Releases a configuration. NULL is ignored. The handle must not be used afterwards.
///
/// # Safety
/// `config` must be NULL or a handle from `elo_config_new`/`elo_config_from_json` that has
/// not been freed.
#[no_mangle]
pub unsafe extern "C" fn elo_config_free(config: *mut EloConfig) {
    ffi_boundary!(value () => {
        if !config.is_null() {
            drop(unsafe { Box::from_raw(config) });
        }
    });
}
