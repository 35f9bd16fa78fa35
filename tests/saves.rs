//! Pool saves (`ranking_elo::save`, `elo_pool_to_json`, `elo_pool_save_file`, …): exact
//! round trips of saves and configurations, concurrent saves to one path, and the refusal
//! of bad files and paths.

use std::ffi::c_char;
use std::ptr::null_mut;

use ranking_elo::ffi::*;
use ranking_elo::pool::{Match, Pool};
use ranking_elo::{Config, Outcome};

mod common;
use common::{ffi_load_text, ffi_pool, ffi_save_text, ffi_try_config, last_message, temp_dir, SplitMix};

fn path_call(f: unsafe extern "C" fn(*mut EloPool, *const c_char, i32) -> EloResult, pool: *mut EloPool, path: &str) -> EloResult {
    unsafe { f(pool, path.as_ptr().cast(), path.len() as i32) }
}

fn save_call(pool: *mut EloPool, path: &str) -> EloResult {
    unsafe { elo_pool_save_file(pool, path.as_ptr().cast(), path.len() as i32) }
}

/// Saves and configurations round trip bit for bit (once 134 of 200 zero-sum saves reloaded
/// with another offset, and `victory_bonus` 8888888888888841 came back …842).
#[test]
fn saves_and_configurations_round_trip_bit_for_bit() {
    let mut rng = SplitMix(4);
    for round in 0..200 {
        // Factors with every mantissa bit used, within their ranges.
        let bonus = rng.unit() * 1e6;
        let share = rng.unit() * 1e6;
        let total = (rng.unit() - 0.5) * 1e12;
        let json = format!(r#"{{"zero_sum_total":{total:e},"victory_bonus":{bonus:e},"score_share_bonus":{share:e},"streak_alpha":{}}}"#, rng.unit());
        let rules = Config::from_json(&json).unwrap();
        let again = Config::from_json(&rules.config().to_json()).unwrap();
        assert_eq!(again.config().victory_bonus.to_bits(), bonus.to_bits(), "round {round}");
        assert_eq!(again.config().zero_sum_total.unwrap().to_bits(), total.to_bits());
        let mut pool = Pool::new(rules);
        pool.add_players(20);
        let matches: Vec<Match> =
            (0..300).map(|i| Match::new(i % 20, (i * 7 + 3) % 20, if rng.next().is_multiple_of(2) { Outcome::WIN } else { Outcome::DRAW })).filter(|m| m.a != m.b).collect();
        pool.apply(&matches, None).unwrap();
        let mut restored = ranking_elo::save::from_json(&ranking_elo::save::to_json(&pool)).unwrap();
        assert_eq!(restored, pool, "round {round}");
        pool.apply(&matches, None).unwrap();
        restored.apply(&matches, None).unwrap();
        assert_eq!(restored, pool, "round {round}: the restored pool continues identically");
    }
    let (code, cfg) = ffi_try_config(r#"{"victory_bonus": 888888.8888888841}"#);
    assert_eq!(code, EloResult::Ok);
    let mut len = 0;
    unsafe { elo_config_to_json(cfg, null_mut(), 0, &mut len) };
    let mut buffer = vec![0u8; len as usize + 1];
    assert_eq!(unsafe { elo_config_to_json(cfg, buffer.as_mut_ptr().cast(), len + 1, &mut len) }, EloResult::Ok);
    let text = String::from_utf8(buffer[..len as usize].to_vec()).unwrap();
    assert_eq!(Config::from_json(&text).unwrap().config().victory_bonus.to_bits(), 888_888.888_888_884_1f64.to_bits(), "{text}");
    unsafe { elo_config_free(cfg) };
    // Random rating bits in range survive a save.
    let mut pool = Pool::new(Config::default().validate().unwrap());
    pool.add_players(2000);
    for i in 0..2000 {
        let rating = loop {
            let candidate = f32::from_bits(rng.next() as u32);
            if candidate.is_finite() && candidate.abs() <= 1e15 {
                break candidate;
            }
        };
        pool.set_player(i, ranking_elo::PlayerState::new(rating)).unwrap();
    }
    assert_eq!(ranking_elo::save::from_json(&ranking_elo::save::to_json(&pool)).unwrap(), pool);
}

/// Concurrent saves to one path all succeed and readers see whole files (saves from two
/// pools once shared the temporary name `<name>.tmp-<pid>`: concurrent saves failed and
/// readers saw empty or cut files); leftovers of a crashed save are removed.
#[test]
fn concurrent_saves_to_one_path_all_succeed_and_readers_see_whole_files() {
    let dir = temp_dir("saves-concurrent");
    let path = dir.join("ladder.json");
    let path_text = path.to_string_lossy().into_owned();
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let path_text = path_text.clone();
            std::thread::spawn(move || {
                let pool = ffi_pool("{}", 100 + w);
                for _ in 0..50 {
                    assert_eq!(save_call(pool, &path_text), EloResult::Ok, "{}", last_message());
                }
                unsafe { elo_pool_free(pool) };
            })
        })
        .collect();
    let reader = {
        let path_text = path_text.clone();
        std::thread::spawn(move || {
            let pool = ffi_pool("{}", 1);
            let mut loaded = 0;
            for _ in 0..200 {
                match path_call(elo_pool_load_file, pool, &path_text) {
                    EloResult::Ok => loaded += 1,
                    EloResult::Io => {} // not written yet
                    other => panic!("a reader saw a partial save: {other:?} {}", last_message()),
                }
            }
            unsafe { elo_pool_free(pool) };
            loaded
        })
    };
    for writer in writers {
        writer.join().unwrap();
    }
    reader.join().unwrap();
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "only the save remains: {left:?}");

    // Leftovers of a crashed save (recognisably ours, old) are removed; fresh ones and
    // other files are not.
    let old = dir.join("ladder.json.ranking-elo-tmp-999999-0-00000000deadbeef");
    let fresh = dir.join("ladder.json.ranking-elo-tmp-999998-0-00000000deadbeef");
    let other = dir.join("notes.txt");
    for file in [&old, &fresh, &other] {
        std::fs::write(file, "x").unwrap();
    }
    let long_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&old).unwrap().set_modified(long_ago).unwrap();
    let pool = ffi_pool("{}", 3);
    assert_eq!(save_call(pool, &path_text), EloResult::Ok);
    assert!(!old.exists() && fresh.exists() && other.exists());
    unsafe { elo_pool_free(pool) };
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Bad save files and paths are refused and change nothing: a file that is not UTF-8 is an
/// invalid save (not an I/O error), a path that names no file is an argument error, a
/// file that is not a regular file is refused at once (never read without end), and a save
/// given as an array is not read by position.
#[test]
fn bad_files_and_paths_are_refused_and_change_nothing() {
    let dir = temp_dir("saves-refusals");
    let pool = ffi_pool("{}", 4);
    let before = ffi_save_text(pool);

    // A save file that is not UTF-8 is an invalid save, not an I/O error.
    let binary = dir.join("binary.json");
    std::fs::write(&binary, [0xff, 0xfe, 0x7b, 0x00]).unwrap();
    assert_eq!(path_call(elo_pool_load_file, pool, &binary.to_string_lossy()), EloResult::InvalidSave);

    // Paths that name no file are argument errors.
    for path in ["", "/", "d/..", "d/"] {
        assert_eq!(save_call(pool, path), EloResult::InvalidArgument, "{path:?}");
        assert_eq!(path_call(elo_pool_load_file, pool, path), EloResult::InvalidArgument, "{path:?}");
    }

    // Files that are not regular files: refused at once, never read without end.
    assert_eq!(path_call(elo_pool_load_file, pool, "/dev/zero"), EloResult::Io);
    assert!(last_message().contains("not a regular file"), "{}", last_message());
    assert_eq!(path_call(elo_pool_load_file, pool, &dir.to_string_lossy()), EloResult::Io);
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo");
        let name = std::ffi::CString::new(fifo.to_string_lossy().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        assert_eq!(path_call(elo_pool_load_file, pool, &fifo.to_string_lossy()), EloResult::Io, "a FIFO must not block");
    }
    assert_eq!(ffi_load_text(pool, "[\"ranking-elo-pool\",2,\"0\",{}]"), EloResult::InvalidSave);
    assert_eq!(ffi_save_text(pool), before, "nothing changed");
    unsafe { elo_pool_free(pool) };
    std::fs::remove_dir_all(&dir).unwrap();
}
