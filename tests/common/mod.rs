//! Helpers shared by the integration tests and the benchmarks.

/// SplitMix64: a tiny, fixed generator, so test data never depends on a crate version.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` with 24 random bits (an exact `f32`).
    #[allow(dead_code)] // not every test uses every helper
    pub fn unit_f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[allow(dead_code)]
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A configuration handle from JSON through the C ABI (the JSON must be valid).
#[allow(dead_code)]
pub fn ffi_config(json: &str) -> *mut ranking_elo::ffi::EloConfig {
    let mut handle = std::ptr::null_mut();
    let code = unsafe { ranking_elo::ffi::elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut handle) };
    assert_eq!(code, ranking_elo::ffi::EloResult::Ok, "{json}");
    handle
}

/// The last error message of this thread, read the documented way: ask for the length,
/// then copy into a buffer of exactly that size plus the NUL.
#[allow(dead_code)]
pub fn last_message() -> String {
    use ranking_elo::ffi::{elo_last_error_message, EloResult};
    let mut len = 0;
    assert_eq!(unsafe { elo_last_error_message(std::ptr::null_mut(), 0, &mut len) }, EloResult::BufferTooSmall);
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_last_error_message(buffer.as_mut_ptr().cast(), buffer.len() as i32, &mut len) }, EloResult::Ok);
    assert_eq!(buffer[len as usize], 0, "NUL-terminated");
    String::from_utf8(buffer[..len as usize].to_vec()).unwrap_or_default()
}

/// A pool through the C ABI, rated under the configuration `json`, with `players` new
/// players.
#[allow(dead_code)]
pub fn ffi_pool(json: &str, players: i32) -> *mut ranking_elo::ffi::EloPool {
    use ranking_elo::ffi::{elo_config_free, elo_pool_add_players, elo_pool_new, EloResult};
    let cfg = ffi_config(json);
    let mut pool = std::ptr::null_mut();
    assert_eq!(unsafe { elo_pool_new(cfg, &mut pool) }, EloResult::Ok);
    unsafe { elo_config_free(cfg) };
    let mut first = -1;
    assert_eq!(unsafe { elo_pool_add_players(pool, players, &mut first) }, EloResult::Ok);
    pool
}

/// Every rating of a pool, read through the C ABI.
#[allow(dead_code)]
pub fn ffi_ratings(pool: *const ranking_elo::ffi::EloPool) -> Vec<f32> {
    use ranking_elo::ffi::{elo_pool_get_ratings, elo_pool_len, EloResult};
    let mut len = 0;
    assert_eq!(unsafe { elo_pool_len(pool, &mut len) }, EloResult::Ok);
    let mut out = vec![0.0; len as usize];
    assert_eq!(unsafe { elo_pool_get_ratings(pool, 0, len, out.as_mut_ptr()) }, EloResult::Ok);
    out
}

/// A configuration from JSON through the C ABI: the result code and the handle (NULL on
/// failure; the caller frees it).
#[allow(dead_code)]
pub fn ffi_try_config(json: &str) -> (ranking_elo::ffi::EloResult, *mut ranking_elo::ffi::EloConfig) {
    let mut handle = std::ptr::null_mut();
    let code = unsafe { ranking_elo::ffi::elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut handle) };
    (code, handle)
}

/// The result code of reading a configuration through the C ABI (the handle is freed).
#[allow(dead_code)]
pub fn ffi_config_code(json: &str) -> ranking_elo::ffi::EloResult {
    let (code, handle) = ffi_try_config(json);
    unsafe { ranking_elo::ffi::elo_config_free(handle) };
    code
}

/// A pool's total, read through the C ABI.
#[allow(dead_code)]
pub fn ffi_total(pool: *const ranking_elo::ffi::EloPool) -> f64 {
    let mut total = f64::NAN;
    assert_eq!(unsafe { ranking_elo::ffi::elo_pool_total(pool, &mut total) }, ranking_elo::ffi::EloResult::Ok);
    total
}

/// Sets player `index`'s rating through the C ABI (the rest of its state kept).
#[allow(dead_code)]
pub fn ffi_set_rating(pool: *mut ranking_elo::ffi::EloPool, index: i32, rating: f32) -> ranking_elo::ffi::EloResult {
    use ranking_elo::ffi::{elo_pool_get_player, elo_pool_set_player, EloPlayerState};
    let mut state = EloPlayerState::from(ranking_elo::PlayerState::new(rating));
    unsafe { elo_pool_get_player(pool, index, &mut state) };
    state.rating = rating;
    unsafe { elo_pool_set_player(pool, index, &state) }
}

/// A pool's save, written through the C ABI.
#[allow(dead_code)]
pub fn ffi_save_text(pool: *const ranking_elo::ffi::EloPool) -> String {
    use ranking_elo::ffi::{elo_pool_to_json, EloResult};
    let mut len = 0;
    unsafe { elo_pool_to_json(pool, std::ptr::null_mut(), 0, &mut len) };
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_pool_to_json(pool, buffer.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    String::from_utf8(buffer[..len as usize].to_vec()).unwrap()
}

/// Loads a save into a pool through the C ABI.
#[allow(dead_code)]
pub fn ffi_load_text(pool: *mut ranking_elo::ffi::EloPool, text: &str) -> ranking_elo::ffi::EloResult {
    unsafe { ranking_elo::ffi::elo_pool_load_json(pool, text.as_ptr().cast(), text.len() as i32) }
}

/// An empty folder of the system's temporary folder for one test (`name`) of this process.
#[allow(dead_code)]
pub fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ranking-elo-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
