//! The `elo-sim` subcommands on small seeded runs: files exist and decode, figures fall in
//! the expected ranges, errors name the line and column.

use std::path::{Path, PathBuf};
use std::process::Command;

fn elo_sim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_elo-sim")).args(args).output().expect("elo-sim runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("elo-sim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let reader = decoder.read_info().unwrap();
    (reader.info().width, reader.info().height)
}

fn gif_frames(path: &Path) -> usize {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(std::fs::File::open(path).unwrap()).unwrap();
    let mut frames = 0;
    while decoder.read_next_frame().unwrap().is_some() {
        frames += 1;
    }
    frames
}

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn simulate_tracks_skill_and_writes_png_gif_json() {
    let dir = temp("simulate");
    let out = dir.to_string_lossy().into_owned();
    let (ok, stdout, stderr) = elo_sim(&["simulate", "--players", "100", "--matches", "20000", "--seed", "3", "--matchmaker", "off", "--frames", "10", "--out", &out]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Spearman"));
    assert_eq!(png_size(&dir.join("rating_vs_skill.png")), (720, 540));
    assert_eq!(gif_frames(&dir.join("rating_vs_skill.gif")), 11); // the start and 10 snapshots
    let s = summary(&dir);
    let spearman = s["spearman_rating_skill"].as_f64().unwrap();
    assert!(spearman > 0.9, "Spearman {spearman}");
    let log_loss = s["log_loss_last_10_percent"].as_f64().unwrap();
    assert!(log_loss < 0.65 && log_loss > 0.3, "random pairs are predictable: log-loss {log_loss}");
    assert!(s["brier"].as_f64().unwrap() < 0.25);
    assert_eq!(s["top"].as_array().unwrap().len(), 5);
    assert!(s["mean_drift"].as_f64().unwrap().abs() < 1e-3, "no bonus, no drift");

    // The same seed gives the same run.
    let again = temp("simulate-again");
    let out2 = again.to_string_lossy().into_owned();
    assert!(elo_sim(&["simulate", "--players", "100", "--matches", "20000", "--seed", "3", "--matchmaker", "off", "--frames", "10", "--out", &out2]).0);
    assert_eq!(summary(&again)["top"], s["top"]);
    assert_eq!(std::fs::read(again.join("rating_vs_skill.png")).unwrap(), std::fs::read(dir.join("rating_vs_skill.png")).unwrap());
}

#[test]
fn victory_bonus_drift_and_matchmaker_run() {
    let dir = temp("bonus");
    let config = dir.join("bonus.json");
    std::fs::write(&config, r#"{"victory_bonus": 2}"#).unwrap();
    let out = dir.join("run").to_string_lossy().into_owned();
    let (ok, _, stderr) = elo_sim(&["simulate", "--players", "200", "--matches", "10000", "--seed", "5", "--config", &config.to_string_lossy(), "--frames", "3", "--out", &out]);
    assert!(ok, "{stderr}");
    let s = summary(Path::new(&out));
    let drift = s["mean_drift"].as_f64().unwrap();
    let predicted = s["bonus_drift_predicted"].as_f64().unwrap();
    assert!((predicted - 100.0).abs() < 1e-9);
    assert!((drift - predicted).abs() < 1e-3, "each match adds V once: drift {drift}, predicted {predicted}");
    assert!(s["matchmaker"].as_bool().unwrap());
}

#[test]
fn share_bonus_drifts_too_and_coin_results_ignore_skill() {
    // Audit finding: the predicted drift counted V only, while L adds drift too.
    let dir = temp("share-bonus");
    let config = dir.join("bonus.json");
    std::fs::write(&config, r#"{"victory_bonus": 1, "score_share_bonus": 3}"#).unwrap();
    let out = dir.join("run").to_string_lossy().into_owned();
    let (ok, _, stderr) = elo_sim(&[
        "simulate",
        "--players",
        "100",
        "--matches",
        "5000",
        "--seed",
        "2",
        "--matchmaker",
        "off",
        "--results",
        "coin",
        "--initial-rating",
        "1000",
        "--config",
        &config.to_string_lossy(),
        "--frames",
        "2",
        "--out",
        &out,
    ]);
    assert!(ok, "{stderr}");
    let s = summary(Path::new(&out));
    let predicted = s["bonus_drift_predicted"].as_f64().unwrap();
    assert!((predicted - 200.0).abs() < 1e-9, "5000 matches * (1 + 3) / 100 players: {predicted}");
    assert!((s["mean_drift"].as_f64().unwrap() - predicted).abs() < 1e-3);
    assert_eq!(s["results"], "coin");
    assert!((s["mean_rating_initial"].as_f64().unwrap() - 1000.0).abs() < 1e-9);
    // Coin flips ignore skill: the ranking says nothing about it.
    assert!(s["spearman_rating_skill"].as_f64().unwrap().abs() < 0.3, "{}", s["spearman_rating_skill"]);
}

#[test]
fn league_system_002_shape() {
    let dir = temp("leagues");
    let out = dir.to_string_lossy().into_owned();
    let config = repository().join("benches/system_002.json");
    let (ok, _, stderr) = elo_sim(&[
        "simulate",
        "--players",
        "2000",
        "--matches",
        "200000",
        "--seed",
        "9",
        "--matchmaker",
        "off",
        "--skills",
        "uniform:1499:1501",
        "--config",
        &config.to_string_lossy(),
        "--frames",
        "2",
        "--out",
        &out,
    ]);
    assert!(ok, "{stderr}");
    let counts: Vec<u64> = summary(&dir)["league_counts"].as_array().unwrap().iter().map(|l| l["players"].as_u64().unwrap()).collect();
    assert_eq!(counts.iter().sum::<u64>(), 2000);
    assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
}

#[test]
fn committed_history_is_the_generators_output() {
    let dir = temp("history");
    let path = dir.join("history.csv");
    assert!(elo_sim(&["generate-history", "--players", "60", "--matches", "3000", "--seed", "7", "--out", &path.to_string_lossy()]).0);
    let committed = std::fs::read_to_string(repository().join("tests/data/history.csv")).unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), committed, "regenerate tests/data/history.csv with the command in this test");
}

#[test]
fn tune_finds_a_reasonable_k_and_plots_it() {
    let dir = temp("tune");
    let history = repository().join("tests/data/history.csv");
    let out = dir.to_string_lossy().into_owned();
    let (ok, stdout, stderr) = elo_sim(&["tune", "--history", &history.to_string_lossy(), "--k-range", "4:80:4", "--out", &out]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("<- best"));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("tuning.json")).unwrap()).unwrap();
    let candidates = report["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 20);
    let best = candidates.iter().min_by(|a, b| a["log_loss"].as_f64().unwrap().total_cmp(&b["log_loss"].as_f64().unwrap())).unwrap();
    let k = best["k"].as_f64().unwrap();
    assert!((8.0..=64.0).contains(&k), "best K {k}");
    assert!(best["log_loss"].as_f64().unwrap() < std::f64::consts::LN_2, "better than a coin");
    assert_eq!(png_size(&dir.join("log_loss_vs_k.png")), (720, 480));
}

#[test]
fn replay_writes_the_table() {
    let dir = temp("replay");
    let out = dir.join("ratings.csv");
    let history = repository().join("tests/data/history.csv");
    let (ok, _, stderr) = elo_sim(&["replay", "--history", &history.to_string_lossy(), "--out", &out.to_string_lossy()]);
    assert!(ok, "{stderr}");
    let table = std::fs::read_to_string(&out).unwrap();
    assert!(table.starts_with("rank,player,rating,games,win_streak,league\n1,"));
    assert_eq!(table.lines().count(), 61);
}

#[test]
fn bad_input_gets_clear_errors() {
    let dir = temp("errors");
    let csv = dir.join("bad.csv");
    std::fs::write(&csv, "player_a,player_b,result\nann,bob,win\nann,bob,2.5\n").unwrap();
    let (ok, _, stderr) = elo_sim(&["replay", "--history", &csv.to_string_lossy()]);
    assert!(!ok);
    assert!(stderr.contains("bad.csv:3:3: score 2.5 is outside [0, 1]"), "{stderr}");
    let config = dir.join("bad.json");
    std::fs::write(&config, r#"{"k_policy": {"policy": "constant", "k": -3}}"#).unwrap();
    let (ok, _, stderr) = elo_sim(&["simulate", "--players", "10", "--matches", "10", "--config", &config.to_string_lossy(), "--out", &dir.to_string_lossy()]);
    assert!(!ok);
    assert!(stderr.contains("k_policy.k"), "{stderr}");
    let (ok, _, stderr) = elo_sim(&["simulate", "--player", "10"]);
    assert!(!ok && stderr.contains("unknown option --player"), "{stderr}");
}

#[test]
fn team_and_free_for_all_modes_converge_toward_skill() {
    for (args, mode) in [(&["--team-size", "3"][..], "teams of 3"), (&["--players-per-match", "6", "--matchmaker", "off"][..], "free-for-all of 6")] {
        let dir = temp(&format!("group-{}", mode.replace(' ', "-")));
        let out = dir.to_string_lossy().into_owned();
        let mut all = vec!["simulate", "--players", "300", "--matches", "20000", "--seed", "4", "--frames", "2", "--out", &out];
        all.extend_from_slice(args);
        let (ok, stdout, stderr) = elo_sim(&all);
        assert!(ok, "{stderr}");
        assert!(stdout.starts_with(mode), "{stdout}");
        let s = summary(&dir);
        assert_eq!(s["mode"], mode);
        let spearman = s["spearman_rating_skill"].as_f64().unwrap();
        assert!(spearman > 0.8, "{mode}: ratings should order players by skill ({spearman})");
        let log_loss = s["log_loss"].as_f64().unwrap();
        assert!(log_loss > 0.0 && log_loss < 0.75, "{mode}: log-loss {log_loss}");
    }
}

/// Decodes a PNG to RGB rows.
fn png_rgb(path: &Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buffer).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buffer.truncate(info.buffer_size());
    (info.width, info.height, buffer)
}

#[test]
fn seasons_reset_decay_and_chart_the_distributions() {
    let dir = temp("seasons");
    let config = dir.join("season.json");
    std::fs::write(
        &config,
        r#"{"k_policy":{"policy":"league"},"demotion_margin":20,"protected_games":2,
            "leagues":[{"name":"Bronze","min_rating":0,"k":32},{"name":"Silver","min_rating":1450,"k":32},{"name":"Gold","min_rating":1600,"k":24,"season_keep":0.3}],
            "season_reset":{"keep":0.5},"decay":{"grace_days":5,"points_per_day":3,"min_league":1}}"#,
    )
    .unwrap();
    let out = dir.join("run").to_string_lossy().into_owned();
    let args = ["simulate", "--players", "300", "--seasons", "3", "--season-matches", "900", "--matchmaker", "off", "--config", config.to_str().unwrap(), "--out", &out];
    let (ok, stdout, stderr) = elo_sim(&args);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("season ends"), "{stdout}");
    let run = dir.join("run");
    let s = summary(&run);
    assert_eq!(s["matches"], 2700);
    let seasons = s["seasons"].as_array().unwrap();
    assert_eq!(seasons.len(), 3);
    for season in seasons {
        let held: u64 = season["league_counts"].as_array().unwrap().iter().map(|l| l["players"].as_u64().unwrap()).sum();
        assert_eq!(held, 300);
        assert!(season["promotions"].as_u64().unwrap() > 0);
        // Six games a season on average: many players sit out more than 5 days.
        assert!(season["decayed_players"].as_u64().unwrap() > 0, "{season}");
    }
    // The chart: 800 x 500, a caption and axis labels drawn in the embedded font (dark,
    // anti-aliased pixels: many grey levels), and one coloured line per season.
    let (width, height, rgb) = png_rgb(&run.join("season_distributions.png"));
    assert_eq!((width, height), (800, 500));
    let caption = &rgb[..(40 * width * 3) as usize];
    let greys: std::collections::BTreeSet<u8> = caption.chunks(3).filter(|p| p[0] == p[1] && p[1] == p[2] && p[0] < 250).map(|p| p[0]).collect();
    assert!(greys.len() > 20, "caption text drawn with {} grey levels", greys.len());
    let orange = rgb.chunks(3).filter(|p| p == &[255, 127, 14]).count();
    assert!(orange > 100, "season 2's line");
    // The same seed gives the same seasons; team runs refuse --seasons.
    let again = dir.join("again").to_string_lossy().into_owned();
    let mut repeat = args;
    repeat[args.len() - 1] = &again;
    assert!(elo_sim(&repeat).0);
    assert_eq!(summary(&dir.join("again"))["seasons"], s["seasons"]);
    let (ok, _, stderr) = elo_sim(&["simulate", "--players", "40", "--seasons", "2", "--season-matches", "10", "--team-size", "2", "--out", &out]);
    assert!(!ok && stderr.contains("--seasons"), "{stderr}");
}

#[test]
fn queue_trades_waiting_for_closer_matches() {
    let dir = temp("queue");
    let out = dir.to_str().unwrap();
    let (ok, stdout, stderr) = elo_sim(&[
        "queue",
        "--population-players",
        "2000",
        "--population-matches",
        "100000",
        "--arrivals",
        "200",
        "--seconds",
        "20",
        "--widening",
        "10:2:100",
        "--widening",
        "200:50:800",
        "--out",
        out,
    ]);
    assert!(ok, "{stdout}{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("queue_summary.json")).unwrap()).unwrap();
    let (narrow, wide) = (&summary["settings"][0], &summary["settings"][1]);
    for setting in [narrow, wide] {
        assert_eq!(setting["tickets"], 4000);
        assert_eq!(setting["matched"].as_u64().unwrap() + setting["unmatched"].as_u64().unwrap(), 4000, "{setting}");
        assert!(setting["unmatched"].as_u64().unwrap() <= 2, "everyone meets someone once windows are wide: {setting}");
    }
    let number = |v: &serde_json::Value, name: &str| v[name].as_f64().unwrap();
    assert!(number(narrow, "mean_gap") < number(wide, "mean_gap"), "narrow windows make closer matches: {summary}");
    assert!(number(narrow, "wait_p99_seconds") > number(wide, "wait_p99_seconds"), "and longer waits: {summary}");
    assert!(number(narrow, "mean_gap") <= 100.0, "never beyond the widest window: {summary}");
    for name in ["queue_time_to_match.png", "queue_rating_gap.png"] {
        assert_eq!(png_size(&dir.join(name)), (900, 560));
    }
    let (ok, _, stderr) = elo_sim(&["queue", "--widening", "1:2", "--out", out]);
    assert!(!ok && stderr.contains("M0:GROWTH:MAX"), "{stderr}");
}
