//! What a newcomer meets through the C ABI (`docs/quickstart.md#when-something-goes-wrong`):
//! the tutorial mirrors refuse a negative K like other bad input, file errors name the
//! path, the operation and the fix, league names read back, a length that counts the C
//! string's NUL is named as such, type errors and range errors say what was given, and
//! pools load without a throwaway configuration.

use std::ptr::null_mut;

use ranking_elo::ffi::*;

mod common;
use common::{ffi_config, ffi_pool, last_message};

/// A scratch folder of this test process, removed by the caller.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ranking-elo-newcomer-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn text(pool: *const EloPool) -> String {
    let mut len = 0;
    assert_eq!(unsafe { elo_pool_to_json(pool, null_mut(), 0, &mut len) }, EloResult::BufferTooSmall);
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_pool_to_json(pool, buffer.as_mut_ptr().cast(), buffer.len() as i32, &mut len) }, EloResult::Ok);
    String::from_utf8(buffer[..len as usize].to_vec()).unwrap()
}

#[test]
fn item_4_a_negative_k_in_the_mirrors_gives_nan() {
    let r = elo_update_player_rankings(1700.0, 1300.0, -32.0, 0);
    assert!(r.x.is_nan() && r.y.is_nan(), "the loser would gain 29 points: {r:?}");
    let r = elo_update_player_rankings(1700.0, 1300.0, 32.0, 0);
    assert!((r.x - 1670.909).abs() < 1e-3);
    // The checked form answers with a code and the value given.
    let (mut a, mut b) = (0.0, 0.0);
    assert_eq!(unsafe { elo_update_player_rankings_score(1700.0, 1300.0, -32.0, 0.0, &mut a, &mut b) }, EloResult::NegativeK);
    assert_eq!(last_message(), "multiplier must not be negative (got -32)");
}

#[test]
fn item_5_file_errors_name_the_path_the_operation_and_the_fix() {
    let dir = scratch("files");
    let pool = ffi_pool("{}", 3);
    let into_missing = dir.join("saves").join("ladder.json");
    let path = into_missing.to_str().unwrap();
    assert_eq!(unsafe { elo_pool_save_file(pool, path.as_ptr().cast(), path.len() as i32) }, EloResult::Io);
    let folder = dir.join("saves");
    assert_eq!(
        last_message(),
        format!(
            "cannot save the pool to \"{path}\": the folder \"{}\" does not exist (the engine does not create folders: create it first, or choose another path)",
            folder.display()
        )
    );
    let (mut records, mut events) = (vec![EloSeasonRecord { player: 0, rating: 0.0, peak_rating: 0.0, league: 0, peak_league: 0, games: 0, wins: 0 }; 3], 0);
    let season = dir.join("seasons").join("season-1.json");
    let season = season.to_str().unwrap();
    let code = unsafe { elo_pool_end_season(pool, records.as_mut_ptr(), 3, season.as_ptr().cast(), season.len() as i32, null_mut(), 0, &mut events) };
    assert_eq!(code, EloResult::Io);
    let message = last_message();
    assert!(message.starts_with(&format!("cannot write the season records to \"{season}\": the folder")), "{message}");
    assert!(message.ends_with("the season did not end: nothing was reset"), "{message}");
    let missing = dir.join("missing.json");
    let missing = missing.to_str().unwrap();
    assert_eq!(unsafe { elo_pool_load_file(pool, missing.as_ptr().cast(), missing.len() as i32) }, EloResult::Io);
    assert_eq!(
        last_message(),
        format!("cannot load a pool save from \"{missing}\": the file does not exist (nothing was saved at this path yet: check the path, or start a new pool)")
    );
    unsafe { elo_pool_free(pool) };
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn item_6_league_names_read_back() {
    let config = ffi_config(r#"{"leagues": [{"name": "Bronze", "min_rating": 0}, {"name": "Silver ★", "min_rating": 1550}]}"#);
    let mut len = -1;
    assert_eq!(unsafe { elo_config_league_name(config, 1, null_mut(), 0, &mut len) }, EloResult::BufferTooSmall);
    assert_eq!(len, "Silver ★".len() as i32);
    let mut small = [b'x' as std::os::raw::c_char; 4];
    assert_eq!(unsafe { elo_config_league_name(config, 1, small.as_mut_ptr(), 4, &mut len) }, EloResult::BufferTooSmall);
    assert_eq!(small[0], b'x' as std::os::raw::c_char, "nothing written when it does not fit");
    let mut buffer = [0u8; 32];
    assert_eq!(unsafe { elo_config_league_name(config, 1, buffer.as_mut_ptr().cast(), 32, &mut len) }, EloResult::Ok);
    assert_eq!(&buffer[..=len as usize], "Silver ★\0".as_bytes());
    assert_eq!(unsafe { elo_config_league_name(config, 0, buffer.as_mut_ptr().cast(), 32, &mut len) }, EloResult::Ok);
    assert_eq!(&buffer[..len as usize], b"Bronze");
    for index in [2, -1] {
        assert_eq!(unsafe { elo_config_league_name(config, index, buffer.as_mut_ptr().cast(), 32, &mut len) }, EloResult::IndexOutOfRange);
        assert_eq!(last_message(), format!("index {index} is not a league of the configuration (it has 2, indices from 0)"));
    }
    assert_eq!(unsafe { elo_config_league_name(config, 0, buffer.as_mut_ptr().cast(), 32, null_mut()) }, EloResult::NullPointer);
    unsafe { elo_config_free(config) };
    // Without leagues every player is in league 0, whose name is empty.
    let config = ffi_config("{}");
    buffer[0] = b'x';
    assert_eq!(unsafe { elo_config_league_name(config, 0, buffer.as_mut_ptr().cast(), 32, &mut len) }, EloResult::Ok);
    assert_eq!((len, buffer[0]), (0, 0));
    assert_eq!(unsafe { elo_config_league_name(config, 1, buffer.as_mut_ptr().cast(), 32, &mut len) }, EloResult::IndexOutOfRange);
    assert_eq!(last_message(), "index 1 is not a league of the configuration (it has 0, indices from 0)");
    unsafe { elo_config_free(config) };
}

#[test]
fn item_8_a_length_that_counts_the_nul_is_named() {
    let json = "{\"rounding\": \"truncate\"}\0";
    let mut config = null_mut();
    assert_eq!(unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut config) }, EloResult::InvalidLength);
    assert_eq!(last_message(), "json ends with a NUL character: json_len (25) counts the terminating NUL of the C string; pass strlen(json) instead");
    assert!(config.is_null());
    let pool = ffi_pool("{}", 1);
    let path = "ladder.json\0";
    assert_eq!(unsafe { elo_pool_save_file(pool, path.as_ptr().cast(), path.len() as i32) }, EloResult::InvalidLength);
    assert!(last_message().starts_with("path ends with a NUL character: path_len (12)"));
    unsafe { elo_pool_free(pool) };
}

#[test]
fn item_9_type_and_range_errors_say_what_was_given() {
    let json = r#"{"demotion_margin": "30"}"#;
    let mut config = null_mut();
    assert_eq!(unsafe { elo_config_from_json(json.as_ptr().cast(), json.len() as i32, &mut config) }, EloResult::InvalidJson);
    assert_eq!(last_message(), r#"invalid configuration JSON: demotion_margin: expected a number (got the string "30") at line 1 column 24"#);
    let config = ffi_config("{}");
    let (mut a, mut b) = (0.0, 0.0);
    assert_eq!(unsafe { elo_rate(config, 1500.0, 1500.0, 2.0, &mut a, &mut b) }, EloResult::ScoreOutOfRange);
    assert_eq!(last_message(), "score_a must be between 0 and 1 (got 2)");
    assert_eq!(unsafe { elo_rate(config, 3e38, 1500.0, 1.0, &mut a, &mut b) }, EloResult::OutOfRange);
    assert_eq!(last_message(), "rating_a must be a finite number from -1e15 to 1e15 (MAX_RATING) (got 3e38)");
    assert_eq!(unsafe { elo_rate_points(config, 1500.0, 1500.0, -1.0, 2.0, &mut a, &mut b) }, EloResult::NegativePoints);
    assert_eq!(last_message(), "points_a must not be negative (got -1)");
    unsafe { elo_config_free(config) };
    // A save with a value of the wrong type: the same plain words.
    let pool = ffi_pool("{}", 1);
    let save = text(pool).replace("\"offset\":0.0", "\"offset\":\"0\"");
    let checked = fix_checksum(&save);
    let mut restored = null_mut();
    assert_eq!(unsafe { elo_pool_from_json(checked.as_ptr().cast(), checked.len() as i32, &mut restored) }, EloResult::InvalidSave);
    let message = last_message();
    assert!(message.starts_with("invalid pool save: pool.offset: expected a number (got the string \"0\") at line 1 column "), "{message}");
    unsafe { elo_pool_free(pool) };
}

/// `save` with its checksum recomputed for its (edited) `pool` value.
fn fix_checksum(save: &str) -> String {
    let payload_start = save.find("\"pool\":").unwrap() + "\"pool\":".len();
    let payload = &save[payload_start..save.len() - 1];
    let old = save.split("\"checksum\":\"").nth(1).unwrap().split('"').next().unwrap();
    save.replace(old, &ranking_elo::save::checksum(payload))
}

#[test]
fn item_10_a_pool_loads_without_a_throwaway_pool_and_compares_by_its_json() {
    let dir = scratch("load");
    let pool = ffi_pool(r#"{"leagues": [{"name": "Bronze", "min_rating": 0}, {"name": "Gold", "min_rating": 1510}], "zero_sum_total": 3000}"#, 2);
    let (a, b, s) = ([0i32], [1i32], [1.0f32]);
    assert_eq!(unsafe { elo_pool_apply(pool, a.as_ptr(), b.as_ptr(), s.as_ptr(), 1, null_mut(), null_mut(), null_mut()) }, EloResult::Ok);
    let path = dir.join("ladder.json");
    let path = path.to_str().unwrap();
    assert_eq!(unsafe { elo_pool_save_file(pool, path.as_ptr().cast(), path.len() as i32) }, EloResult::Ok);
    let mut loaded = null_mut();
    assert_eq!(unsafe { elo_pool_from_file(path.as_ptr().cast(), path.len() as i32, &mut loaded) }, EloResult::Ok);
    assert_eq!(text(loaded), text(pool), "equal pools give equal JSON");
    let json = text(pool);
    let mut from_text = null_mut();
    assert_eq!(unsafe { elo_pool_from_json(json.as_ptr().cast(), json.len() as i32, &mut from_text) }, EloResult::Ok);
    assert_eq!(text(from_text), json);
    // Failures leave the output untouched and say why.
    let missing = dir.join("none.json");
    let missing = missing.to_str().unwrap();
    let marker = std::ptr::dangling_mut::<EloPool>();
    let mut untouched = marker;
    assert_eq!(unsafe { elo_pool_from_file(missing.as_ptr().cast(), missing.len() as i32, &mut untouched) }, EloResult::Io);
    assert_eq!(untouched, marker);
    assert!(last_message().contains("the file does not exist"));
    assert_eq!(unsafe { elo_pool_from_json(json.as_ptr().cast(), (json.len() / 2) as i32, &mut untouched) }, EloResult::InvalidSave);
    assert_eq!(untouched, marker);
    assert_eq!(unsafe { elo_pool_from_json(json.as_ptr().cast(), json.len() as i32, null_mut()) }, EloResult::NullPointer);
    for handle in [pool, loaded, from_text] {
        unsafe { elo_pool_free(handle) };
    }
    std::fs::remove_dir_all(dir).unwrap();
}
