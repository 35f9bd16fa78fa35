//! The operator's console (`/console`) in headless Chromium against the real server, on a
//! seeded ladder: the numbers it shows are the API's; an annulment (and the other admin
//! actions) done through it changes what the API and the console show; a read key sees no
//! admin action; a wrong key gets a clear message; the key leaves the address bar and lives
//! in the tab's session storage only; the page runs under its Content-Security-Policy with
//! no violation, and fits a phone's width. Screenshots go to `target/tmp/console/`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;

use serde_json::Value;

use crate::cdp::Browser;
use crate::helpers::{self, verify_replay, Backend, TestApp};
use crate::{random_match, Lcg};

on_both!(
    the_console_shows_the_apis_numbers,
    an_annulment_through_the_console_rerates_the_ladder,
    a_wrong_key_gets_a_clear_message,
    the_queue_page_shows_each_queue_and_its_latest_matches,
    the_webhook_page_marks_a_failing_subscription,
);

/// The seeded ladder's name.
const LADDER: &str = "main";

/// Its rules: FIDE's K, a streak bonus, leagues and a soft reset, no rounding (so that
/// ratings have decimals to show).
const RULES: &str = r#"{"k_policy":{"policy":"fide"},"streak_alpha":0.2,
    "leagues":[{"name":"Bronze","min_rating":0,"k":40},{"name":"Silver","min_rating":1500,"k":30},{"name":"Gold","min_rating":1560,"k":20}],
    "demotion_margin":10,"protected_games":2,"season_reset":{"keep":0.5}}"#;

/// 40 players, 240 matches (pairs, teams, free-for-alls) and a season end at the half.
fn seed(app: &TestApp) {
    app.put_ladder(LADDER, RULES);
    let mut rng = Lcg(2027);
    for i in 0..240 {
        app.ok("POST", &format!("/v1/ladders/{LADDER}/matches"), &app.report, Some(&random_match(&mut rng, &format!("m{i}"), 40, true)));
        if i == 119 {
            app.ok("POST", &format!("/v1/ladders/{LADDER}/seasons/end"), &app.admin, Some(r#"{"id":"s1"}"#));
        }
    }
}

/// Where the screenshots go (a test artifact under `target/`, not committed).
fn artifact(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("console").join(name)
}

/// A rating as the console shows it: one decimal, half up (JavaScript's
/// `(Math.round(x * 10) / 10).toFixed(1)`; exact for the API's `f32` values).
fn shown(rating: f64) -> String {
    format!("{:.1}", (rating * 10.0 + 0.5).floor() / 10.0)
}

fn cells(browser: &mut Browser, table: &str) -> Vec<Vec<String>> {
    let rows = browser.eval(&format!("[...document.querySelectorAll('{table} tbody tr')].map(tr => [...tr.cells].map(td => td.textContent.trim()))"));
    serde_json::from_value(rows).expect("rows of cells")
}

/// The leaderboard lines as the console's table shows them: rank, player, rating, league.
fn board_lines(entries: &Value) -> Vec<Vec<String>> {
    entries
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| vec![e["rank"].to_string(), e["player"].as_str().unwrap().to_owned(), shown(e["rating"].as_f64().unwrap()), e["league"].to_string()])
        .collect()
}

/// The page's response head for `path`.
fn head(app: &TestApp, path: &str) -> String {
    let mut stream = TcpStream::connect(&app.server.address).expect("connect");
    write!(stream, "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    text.split("\r\n\r\n").next().unwrap_or("").to_ascii_lowercase()
}

/// Waits for a view to finish rendering after a navigation.
fn settled(browser: &mut Browser, what: &str) {
    browser.wait("document.getElementById('main').getAttribute('aria-busy') !== 'true' && document.getElementById('main').hasAttribute('data-ready')", what);
}

/// Goes to a view by its fragment (as a link would) and waits for `ready`.
fn visit(browser: &mut Browser, fragment: &str, ready: &str) {
    browser.eval(&format!("document.getElementById('main').removeAttribute('data-ready'); location.hash = {}; true", serde_json::to_string(fragment).unwrap()));
    settled(browser, fragment);
    browser.wait(ready, fragment);
}

/// No admin control anywhere on the page.
fn no_admin_controls(browser: &mut Browser, page: &str) {
    let found = browser.eval(
        "[...document.querySelectorAll('[data-action], .admin, button')].map(b => b.textContent.trim()).filter(t => /annul|correct|erase|end season|schedule|review/i.test(t))",
    );
    assert_eq!(found, Value::Array(Vec::new()), "admin controls on the {page} page of a read key");
    assert_eq!(browser.eval("document.querySelectorAll('[data-action], .admin').length"), Value::from(0), "{page}");
}

/// The read key, handed over in a link: every page's numbers are the API's; no admin action.
fn the_console_shows_the_apis_numbers(backend: Backend) {
    let app = TestApp::spawn(backend);
    seed(&app);
    let base = format!("http://{}", app.server.address);

    // The console's responses: its own files, a strict policy, nothing inline.
    for (path, kind) in [
        ("/console", "text/html"),
        ("/console/console.js", "text/javascript"),
        ("/console/queues.js", "text/javascript"),
        ("/console/webhooks.js", "text/javascript"),
        ("/console/console.css", "text/css"),
        ("/console/icon.svg", "image/svg+xml"),
    ] {
        let head = head(&app, path);
        assert!(head.starts_with("http/1.1 200"), "{path}: {head}");
        assert!(head.contains(&format!("content-type: {kind}")), "{path}: {head}");
        assert!(
            head.contains("content-security-policy: default-src 'none'; script-src 'self'; style-src 'self';")
                && head.contains("frame-ancestors 'none'")
                && !head.contains("unsafe"),
            "{path}: {head}"
        );
        assert!(head.contains("x-content-type-options: nosniff") && head.contains("referrer-policy: no-referrer"), "{path}: {head}");
    }
    let (_, page) = helpers::call(&app.server.address, "GET", "/console", None, None).unwrap();
    assert!(
        !page.contains("<script>") && !page.contains("style=") && !page.contains("http://") && !page.contains("https://"),
        "no inline script or style, nothing from another host"
    );

    let mut browser = Browser::start(1280, 900);
    browser.navigate(&format!("{base}/console#key={}&ladder={LADDER}", app.read));
    settled(&mut browser, "the leaderboard");
    browser.wait("document.querySelector('#board tbody tr')", "the leaderboard's lines");

    // The key left the address bar and lives in this tab's session storage only.
    let href = browser.text("location.href");
    assert!(!href.contains(&app.read) && !href.contains("key="), "{href}");
    assert!(href.ends_with(&format!("/console#ladder={LADDER}&view=board")), "{href}");
    assert_eq!(browser.text("sessionStorage.getItem('elo-ladder-console-key')"), app.read);
    assert_eq!(browser.eval("[document.cookie, localStorage.length]"), serde_json::json!(["", 0]));
    assert_eq!(browser.text("document.getElementById('scope').dataset.scope"), "read");

    // The first page of the leaderboard, the next page, and the view around a player.
    let top = app.ok("GET", &format!("/v1/ladders/{LADDER}/leaderboard?limit=25"), &app.read, None);
    assert_eq!(cells(&mut browser, "#board"), board_lines(&top["entries"]), "the first page");
    assert!(browser.text("document.getElementById('board-summary').textContent").starts_with("Ranks 1 to 25 of 40 players"));
    browser.screenshot(&artifact(&format!("{backend:?}-leaderboard.png").to_lowercase()));
    browser.eval("document.getElementById('main').removeAttribute('data-ready')");
    browser.click("a[rel=next]");
    settled(&mut browser, "the second page");
    browser.wait("document.getElementById('board-summary').textContent.startsWith('Ranks 26 to 40')", "the second page");
    let second = app.ok("GET", &format!("/v1/ladders/{LADDER}/leaderboard?limit=25&offset=25"), &app.read, None);
    assert_eq!(cells(&mut browser, "#board"), board_lines(&second["entries"]), "the second page");
    // Find a player by name, with the keyboard.
    let middle = top["entries"][12]["player"].as_str().unwrap().to_owned();
    browser.eval("document.getElementById('main').removeAttribute('data-ready')");
    browser.type_into("#find", &middle);
    browser.press("Enter");
    settled(&mut browser, "the view around a player");
    browser.wait("document.querySelector('#board tr.current')", "the player's line");
    let around = app.ok("GET", &format!("/v1/ladders/{LADDER}/leaderboard?around={middle}&limit=25"), &app.read, None);
    assert_eq!(cells(&mut browser, "#board"), board_lines(&around["entries"]), "around {middle}");
    assert_eq!(browser.text("document.querySelector('#board tr.current td:nth-child(2)').textContent"), middle);
    no_admin_controls(&mut browser, "leaderboard");

    // A player's page: the facts, the history table and the chart, against the API.
    let history = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{middle}/matches?limit=50"), &app.read, None);
    let entries = history["entries"].as_array().unwrap().clone();
    assert!(entries.len() >= 8 && history.get("before").is_none(), "{middle} has a history that fits one page: {}", entries.len());
    browser.eval("document.getElementById('main').removeAttribute('data-ready')");
    browser.click("#board tr.current a");
    settled(&mut browser, "the player's page");
    browser.wait("document.getElementById('chart')", "the chart");
    let player = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{middle}"), &app.read, None);
    assert_eq!(browser.text("document.getElementById('player-rank').textContent"), player["rank"].to_string());
    assert_eq!(browser.text("document.getElementById('player-rating').textContent"), shown(player["rating"].as_f64().unwrap()));
    assert_eq!(browser.text("document.getElementById('player-games').textContent"), player["games_played"].to_string());
    check_history(&mut browser, &entries);
    no_admin_controls(&mut browser, "player");
    browser.screenshot(&artifact(&format!("{backend:?}-player.png").to_lowercase()));
    // At a phone's width nothing spills sideways (wide tables scroll in their own box).
    browser.resize(390, 844, true);
    browser.wait("document.documentElement.scrollWidth <= window.innerWidth", "the page fits 390 pixels");
    browser.screenshot(&artifact(&format!("{backend:?}-player-phone.png").to_lowercase()));
    browser.resize(1280, 900, false);

    // The journal, newest first.
    visit(&mut browser, &format!("ladder={LADDER}&view=journal&limit=25"), "document.querySelector('#journal tbody tr')");
    let last_seq = app.ok("GET", &format!("/v1/ladders/{LADDER}"), &app.read, None)["last_seq"].as_i64().unwrap();
    let newest = app.ok("GET", &format!("/v1/ladders/{LADDER}/matches?before={}&limit=25", last_seq + 1), &app.read, None);
    let shown_seqs: Vec<String> = cells(&mut browser, "#journal").iter().map(|row| row[0].clone()).collect();
    let api_seqs: Vec<String> = newest["entries"].as_array().unwrap().iter().map(|e| e["seq"].to_string()).collect();
    assert_eq!(shown_seqs, api_seqs);
    no_admin_controls(&mut browser, "journal");

    // The ended season's final standings, and the schedule.
    visit(&mut browser, &format!("ladder={LADDER}&view=seasons"), "document.querySelector('#seasons tbody tr a')");
    browser.eval("document.getElementById('main').removeAttribute('data-ready')");
    browser.click("#seasons tbody tr a");
    settled(&mut browser, "season 1's standings");
    browser.wait("document.querySelector('#standings tbody tr')", "season 1's standings");
    let standings = app.ok("GET", &format!("/v1/ladders/{LADDER}/seasons/1/leaderboard?limit=25"), &app.read, None);
    let expected: Vec<Vec<String>> = standings["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            vec![
                e["rank"].to_string(),
                e["player"].as_str().unwrap().to_owned(),
                shown(e["rating"].as_f64().unwrap()),
                shown(e["peak_rating"].as_f64().unwrap()),
                e["league"].to_string(),
                e["peak_league"].to_string(),
                e["games"].to_string(),
                e["wins"].to_string(),
            ]
        })
        .collect();
    assert_eq!(cells(&mut browser, "#standings"), expected);
    visit(&mut browser, &format!("ladder={LADDER}&view=schedule"), "document.getElementById('season-now')");
    assert_eq!(browser.text("document.getElementById('season-now').textContent"), "2");
    no_admin_controls(&mut browser, "schedule");
    // The ladders.
    visit(&mut browser, "", "document.querySelector('#ladders tbody tr')");
    let row = &cells(&mut browser, "#ladders")[0];
    assert_eq!((row[0].as_str(), row[1].as_str(), row[3].as_str()), (LADDER, "40", "2"));
    assert!(row[2].ends_with(" UTC m239"), "the last match: {row:?}");

    let problems = browser.problems();
    assert!(problems.is_empty(), "the page reported: {problems:#?}");
}

/// The player page's history table and chart against the API's history (newest first).
fn check_history(browser: &mut Browser, entries: &[Value]) {
    let rows = cells(browser, "#history");
    assert_eq!(rows.len(), entries.len());
    for (row, entry) in rows.iter().zip(entries) {
        let (before, after) = (entry["rating_before"].as_f64().unwrap(), entry["rating_after"].as_f64().unwrap());
        assert_eq!(row[0], entry["seq"].to_string());
        assert_eq!(row[3], entry["id"].as_str().unwrap_or(""));
        assert_eq!((row[4].as_str(), row[5].as_str()), (shown(before).as_str(), shown(after).as_str()), "seq {}", entry["seq"]);
        assert_eq!(row[7] == "annulled", entry["annulled"] == Value::Bool(true), "seq {}", entry["seq"]);
    }
    // One marker per entry, oldest on the left; its label says the entry's numbers, and its
    // height follows the rating (an annulled match stays at the rating before it).
    let markers: Vec<Value> = serde_json::from_value(browser.eval(
        "[...document.querySelectorAll('#chart g.marker')].map(g => ({seq: +g.dataset.seq, annulled: g.classList.contains('annulled'), label: g.querySelector('title').textContent, \
         x: +g.querySelector('circle').getAttribute('cx'), y: +g.querySelector('circle').getAttribute('cy')}))",
    ))
    .unwrap();
    assert_eq!(markers.len(), entries.len());
    let mut previous_x = f64::MIN;
    for (marker, entry) in markers.iter().zip(entries.iter().rev()) {
        let (before, after) = (entry["rating_before"].as_f64().unwrap(), entry["rating_after"].as_f64().unwrap());
        assert_eq!(marker["seq"], entry["seq"]);
        assert_eq!(marker["annulled"], entry["annulled"]);
        let label = marker["label"].as_str().unwrap();
        assert!(label.starts_with(&format!("#{} ", entry["seq"])) && label.contains(&format!("{} \u{2192} {}", shown(before), shown(after))), "{label} for {entry}");
        let x = marker["x"].as_f64().unwrap();
        assert!(x > previous_x, "left to right in time");
        previous_x = x;
    }
    let effective = |e: &Value| if e["annulled"] == Value::Bool(true) { e["rating_before"].as_f64().unwrap() } else { e["rating_after"].as_f64().unwrap() };
    let oldest_first: Vec<&Value> = entries.iter().rev().collect();
    for (i, a) in oldest_first.iter().enumerate() {
        for (j, b) in oldest_first.iter().enumerate() {
            if effective(a) > effective(b) + 0.01 {
                let (ya, yb) = (markers[i]["y"].as_f64().unwrap(), markers[j]["y"].as_f64().unwrap());
                assert!(ya < yb, "a higher rating is drawn higher: {} at {ya}, {} at {yb}", effective(a), effective(b));
            }
        }
    }
    // The axis spans every rating drawn.
    let ticks: Vec<f64> = serde_json::from_value::<Vec<String>>(browser.eval("[...document.querySelectorAll('#chart text.tick')].map(t => t.textContent)"))
        .unwrap()
        .iter()
        .map(|t| t.parse().unwrap())
        .collect();
    let (low, high) = (ticks.iter().copied().fold(f64::MAX, f64::min), ticks.iter().copied().fold(f64::MIN, f64::max));
    assert!(entries.iter().all(|e| (low - 0.05..=high + 0.05).contains(&effective(e))), "ticks {ticks:?}");
}

/// The admin key: an annulment through the console (the confirmation says how many later
/// entries are replayed) changes the leaderboard and the player's history; then a
/// correction, the schedule, a season end and an erasure, each through its confirmation.
fn an_annulment_through_the_console_rerates_the_ladder(backend: Backend) {
    let app = TestApp::spawn(backend);
    seed(&app);
    let base = format!("http://{}", app.server.address);
    let journal = helpers::journal(&app, LADDER);
    // An early pair match, and its first player.
    let target = journal.iter().find(|e| e["kind"] == "pair" && e["seq"].as_i64().unwrap() > 10).unwrap().clone();
    let seq = target["seq"].as_i64().unwrap();
    let id = target["id"].as_str().unwrap().to_owned();
    let player = target["inputs"]["a"].as_str().unwrap().to_owned();
    let later = journal.iter().filter(|e| e["seq"].as_i64().unwrap() > seq).count();
    let board_before = app.ok("GET", &format!("/v1/ladders/{LADDER}/leaderboard?limit=40"), &app.read, None);
    let player_before = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{player}"), &app.read, None);

    let mut browser = Browser::start(1280, 900);
    browser.navigate(&format!("{base}/console#key={}&ladder={LADDER}", app.admin));
    settled(&mut browser, "the leaderboard");
    assert_eq!(browser.text("document.getElementById('scope').dataset.scope"), "admin");
    assert!(!browser.text("location.href").contains(&app.admin));
    visit(&mut browser, &format!("ladder={LADDER}&view=player&player={player}"), "document.getElementById('chart')");
    let selector = format!("#history tr[data-seq='{seq}'] button[data-action=annul]");
    browser.click(&selector);
    browser.wait("document.getElementById('confirm').open", "the confirmation");
    // The confirmation says what will change, counted from the journal.
    browser.wait("!document.getElementById('confirm-ok').disabled", "the count of later entries");
    let what = browser.text("document.getElementById('confirm-what').textContent");
    assert!(what.contains(&format!("{later} later journal entries")), "{what} (expected {later})");
    // Confirming without a reason is refused in the dialog; with one, it is done.
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('confirm-what').textContent.startsWith('Give a reason')", "the missing reason");
    browser.type_into("#annul-reason", "win trading (console test)");
    browser.eval("document.getElementById('main').removeAttribute('data-ready')");
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('status').textContent.startsWith('Annulled')", "the annulment's answer");
    assert!(!browser.eval("document.getElementById('confirm').open").as_bool().unwrap());
    // The newest entry once chained (on PostgreSQL the chainer hashes it just after the
    // commit; until then the page says `pending`).
    let started = std::time::Instant::now();
    let answer = loop {
        let page = app.ok("GET", &format!("/v1/ladders/{LADDER}/matches?before={}&limit=1", i64::MAX), &app.read, None);
        if page["pending"] != Value::Bool(true) || started.elapsed() > std::time::Duration::from_secs(30) {
            break page["entries"][0].clone();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!((answer["kind"].as_str(), answer["inputs"]["match"].as_str()), (Some("annul"), Some(id.as_str())));
    let status = browser.text("document.getElementById('status').textContent");
    assert!(
        status.starts_with(&format!("Annulled {id}: {} later matches re-rated, {} players changed", answer["results"]["rerated"], answer["results"]["players_changed"])),
        "{status}"
    );

    // The player's page now: the match is marked in the table and the chart, the numbers
    // are the API's new ones.
    settled(&mut browser, "the player's page again");
    browser.wait(&format!("document.querySelector(\"#history tr.annulled[data-seq='{seq}']\")"), "the annulled line");
    browser.wait(&format!("document.querySelector(\"#chart g.marker.annulled[data-seq='{seq}']\")"), "the annulled marker");
    let history = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{player}/matches?limit=50"), &app.read, None);
    check_history(&mut browser, history["entries"].as_array().unwrap());
    let player_after = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{player}"), &app.read, None);
    assert_ne!(player_after["rating"], player_before["rating"], "the annulment moved {player}");
    assert_eq!(browser.text("document.getElementById('player-rating').textContent"), shown(player_after["rating"].as_f64().unwrap()));
    assert_eq!(browser.text("document.getElementById('player-rank').textContent"), player_after["rank"].to_string());
    // No action offered on the annulled match any more.
    assert_eq!(browser.eval(&format!("document.querySelectorAll(\"#history tr[data-seq='{seq}'] button\").length")), Value::from(0));
    // (The README's picture, docs/images/console.png, is this screenshot.)
    browser.resize(1024, 860, false);
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&artifact(&format!("{backend:?}-player-annulled.png").to_lowercase()));
    browser.resize(1280, 900, false);

    // The leaderboard changed, and the console shows the new one.
    let board_after = app.ok("GET", &format!("/v1/ladders/{LADDER}/leaderboard?limit=40"), &app.read, None);
    assert_ne!(board_after, board_before, "the annulment changed the leaderboard");
    visit(&mut browser, &format!("ladder={LADDER}&view=board&limit=100"), "document.querySelector('#board tbody tr')");
    assert_eq!(cells(&mut browser, "#board"), board_lines(&board_after["entries"]));
    // The journal marks it with its reason.
    visit(&mut browser, &format!("ladder={LADDER}&view=journal&before={}&limit=10", seq + 1), "document.querySelector('#journal tbody tr')");
    let row = cells(&mut browser, "#journal")[0].clone();
    assert_eq!((row[0].as_str(), row[3].as_str()), (seq.to_string().as_str(), id.as_str()));
    assert!(row[5].contains("annulled") && row[5].contains("win trading (console test)"), "{row:?}");

    // Correct another match from the journal: the dialog shows the reported result.
    let fix = journal.iter().find(|e| e["kind"] == "pair" && e["seq"].as_i64().unwrap() > seq + 20).unwrap();
    let (fix_seq, fix_id, reported) = (fix["seq"].as_i64().unwrap(), fix["id"].as_str().unwrap(), fix["inputs"]["score_a"].as_f64().unwrap());
    let corrected = if (reported - 0.5).abs() < 1e-9 { 1.0 } else { 0.5 };
    visit(&mut browser, &format!("ladder={LADDER}&view=journal&before={}&limit=10", fix_seq + 1), "document.querySelector('#journal tbody tr')");
    browser.click(&format!("#journal tr[data-seq='{fix_seq}'] button[data-action=correct]"));
    browser.wait("document.getElementById('confirm').open && !document.getElementById('confirm-ok').disabled", "the correction's confirmation");
    let what = browser.text("document.getElementById('confirm-what').textContent");
    assert!(what.starts_with(&format!("Now: score_a {reported}. Every later entry")), "{what}");
    assert_eq!(browser.text("document.getElementById('correct-result').value").parse::<f64>().unwrap(), reported);
    browser.type_into("#correct-result", &corrected.to_string());
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('status').textContent.startsWith('Corrected')", "the correction's answer");
    settled(&mut browser, "the journal again");
    browser.wait(&format!("document.querySelector(\"#journal tr[data-seq='{fix_seq}']\").textContent.includes('corrected')"), "the correction's mark");
    let entry = app.ok("GET", &format!("/v1/ladders/{LADDER}/matches?after={}&limit=1", fix_seq - 1), &app.read, None)["entries"][0].clone();
    assert_eq!((entry["id"].as_str(), entry["corrected"]["score_a"].as_f64()), (Some(fix_id), Some(corrected)));

    // The schedule: typed, reviewed (old → new), changed.
    visit(&mut browser, &format!("ladder={LADDER}&view=schedule"), "document.getElementById('schedule-form')");
    browser.type_into("#schedule-season-end", "0 0 1 * *");
    browser.type_into("#schedule-decay", "30 4 * * *");
    browser.type_into("#schedule-period-end", "0 0 * * 1");
    browser.click("#schedule-form button[type=submit]");
    browser.wait("document.getElementById('confirm').open && !document.getElementById('confirm-ok').disabled", "the schedule's confirmation");
    let changes = browser.text("document.getElementById('schedule-changes').textContent");
    assert!(changes.contains("Season end: none \u{2192} 0 0 1 * *") && changes.contains("Decay: none \u{2192} 30 4 * * *"), "{changes}");
    assert!(changes.contains("Rating period end: none \u{2192} 0 0 * * 1"), "{changes}");
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('status').textContent.startsWith('Schedule changed')", "the schedule's answer");
    settled(&mut browser, "the schedule again");
    let described = app.ok("GET", &format!("/v1/ladders/{LADDER}"), &app.read, None);
    assert_eq!(described["schedule"], serde_json::json!({ "season_end": "0 0 1 * *", "decay": "30 4 * * *", "period_end": "0 0 * * 1" }));
    browser.wait("document.getElementById('cron-season-end').textContent === '0 0 1 * *'", "the new schedule shown");

    // End the season now.
    browser.click("button[data-action=end-season]");
    browser.wait("document.getElementById('confirm').open && !document.getElementById('confirm-ok').disabled", "the season end's confirmation");
    let body = browser.text("document.getElementById('confirm-body').textContent");
    assert!(body.contains("Season 2 ends now for 40 players") && body.contains("keeps 0.5"), "{body}");
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('status').textContent.startsWith('Season 2 ended')", "the season end's answer");
    let seasons = app.ok("GET", &format!("/v1/ladders/{LADDER}/seasons"), &app.read, None);
    assert_eq!(seasons["seasons"].as_array().unwrap().len(), 2);

    // Erase a player: the name must be typed.
    visit(&mut browser, &format!("ladder={LADDER}&view=player&player={player}"), "document.querySelector('button[data-action=erase]')");
    let before_erasure = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{player}"), &app.read, None);
    browser.click("button[data-action=erase]");
    browser.wait("document.getElementById('confirm').open && !document.getElementById('confirm-ok').disabled", "the erasure's confirmation");
    browser.type_into("#erase-name", "someone else");
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('confirm-what').textContent.startsWith('The typed name is not')", "a wrong name refused");
    assert_eq!(app.call("GET", &format!("/v1/ladders/{LADDER}/players/{player}"), &app.read, None).0, 200, "nothing erased yet");
    browser.type_into("#erase-name", &player);
    browser.click("#confirm-ok");
    browser.wait("document.getElementById('status').textContent.startsWith('Erased')", "the erasure's answer");
    browser.wait("document.getElementById('heading').textContent.startsWith('Player erased-')", "the pseudonym's page");
    let pseudonym = browser.text("document.getElementById('heading').textContent").trim_start_matches("Player ").to_owned();
    assert!(pseudonym.starts_with("erased-"), "{pseudonym}");
    assert_eq!(app.call("GET", &format!("/v1/ladders/{LADDER}/players/{player}"), &app.read, None).0, 404);
    let erased = app.ok("GET", &format!("/v1/ladders/{LADDER}/players/{pseudonym}"), &app.read, None);
    assert_eq!((&erased["rating"], &erased["rank"]), (&before_erasure["rating"], &before_erasure["rank"]), "an erasure changes no rating or rank");
    assert_eq!(browser.text("document.getElementById('player-rating').textContent"), shown(erased["rating"].as_f64().unwrap()));

    let problems = browser.problems();
    assert!(problems.is_empty(), "the page reported: {problems:#?}");
    verify_replay(&app, LADDER, RULES);
}

/// Keys that do not work: an unknown key typed in, a malformed one, a wrong one in a link,
/// and a key limited to another ladder; each says so plainly and keeps nothing.
fn a_wrong_key_gets_a_clear_message(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder(LADDER, RULES);
    app.put_ladder("other", RULES);
    let base = format!("http://{}", app.server.address);
    let mut browser = Browser::start(1024, 768);
    browser.navigate(&format!("{base}/console"));
    browser.wait("document.getElementById('sign-in')", "the sign-in form");
    assert_eq!(browser.text("document.activeElement.id"), "key", "the key's field has the focus");
    let unknown = format!("elo_0123456789abcdef_{}", "0".repeat(64));
    browser.type_into("#key", &unknown);
    browser.press("Enter");
    browser.wait("document.getElementById('error').textContent", "a message");
    let message = browser.text("document.getElementById('error').textContent");
    assert!(message.starts_with("This key was not accepted (unknown API key)."), "{message}");
    assert_eq!(browser.eval("sessionStorage.length"), Value::from(0), "a refused key is not kept");
    assert!(browser.eval("!!document.getElementById('sign-in')").as_bool().unwrap(), "the form is still there");
    assert_eq!(browser.text("document.getElementById('error').getAttribute('role')"), "alert");
    browser.screenshot(&artifact(&format!("{backend:?}-wrong-key.png").to_lowercase()));

    browser.type_into("#key", "hello");
    browser.eval("document.getElementById('error').textContent = ''");
    browser.click("#sign-in button[type=submit]");
    browser.wait("document.getElementById('error').textContent", "a message");
    let message = browser.text("document.getElementById('error').textContent");
    assert!(message.starts_with("This key was not accepted (the API key is malformed)."), "{message}");

    // A wrong key in a link: refused, and gone from the address bar all the same.
    browser.navigate("about:blank");
    browser.navigate(&format!("{base}/console#key=elo_nothing_here&ladder={LADDER}"));
    browser.wait("document.getElementById('error').textContent && document.getElementById('sign-in')", "a message");
    assert!(browser.text("document.getElementById('error').textContent").starts_with("This key was not accepted"));
    assert!(!browser.text("location.href").contains("elo_nothing_here"));
    assert_eq!(browser.eval("sessionStorage.length"), Value::from(0));

    // A real key for another ladder: signed in, and the ladder it may not read says why.
    let elsewhere = helpers::key(&app.server.database, "read", Some("other"));
    browser.navigate("about:blank");
    browser.navigate(&format!("{base}/console#key={elsewhere}&ladder={LADDER}"));
    browser.wait("document.getElementById('error').textContent", "a message");
    let message = browser.text("document.getElementById('error').textContent");
    assert_eq!(message, "This key may not do that: this key is limited to ladder \"other\".");
    // Its ladders page lists only its own ladder.
    visit(&mut browser, "", "document.querySelector('#ladders tbody tr')");
    let rows = cells(&mut browser, "#ladders");
    assert_eq!(rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), vec!["other"]);
    // Sign out forgets the key.
    browser.click("#sign-out");
    browser.wait("document.getElementById('sign-in')", "the sign-in form");
    assert_eq!(browser.eval("sessionStorage.length"), Value::from(0));

    let problems: Vec<String> = browser.problems().into_iter().filter(|p| !p.contains("status of 401") && !p.contains("status of 403")).collect();
    assert!(problems.is_empty(), "the page reported: {problems:#?}");
}

/// The queues page: each queue's settings, waiting tickets and longest wait, and (for a
/// report or admin key) its latest matches, newest first, as the API gives them.
fn the_queue_page_shows_each_queue_and_its_latest_matches(backend: Backend) {
    let app = TestApp::spawn(backend);
    app.put_ladder(LADDER, r#"{"k_policy":{"policy":"constant","k":32}}"#);
    let queue = |name: &str, settings: &str| app.ok("PUT", &format!("/v1/ladders/{LADDER}/queues/{name}"), &app.admin, Some(settings));
    queue("duel", r#"{"mode":"pair","matchmaking":{"initial_distance":400}}"#);
    queue(
        "squads",
        r#"{"mode":"teams","team_size":2,"party_max":2,"ticket_seconds":120,"attributes":["region"],"matchmaking":{"initial_distance":0,"growth_per_second":0,"max_distance":0}}"#,
    );
    let join = |queue: &str, body: &str| app.ok("POST", &format!("/v1/ladders/{LADDER}/queues/{queue}/tickets"), &app.report, Some(body))["ticket"].as_str().unwrap().to_owned();
    for pair in [["ann", "ben"], ["cid", "dee"]] {
        let first = join("duel", &format!(r#"{{"players":["{}"]}}"#, pair[0]));
        join("duel", &format!(r#"{{"players":["{}"]}}"#, pair[1]));
        let ticket = app.ok("GET", &format!("/v1/ladders/{LADDER}/queues/duel/tickets/{first}?wait=10"), &app.report, None);
        assert_eq!(ticket["state"], "matched", "{ticket}");
    }
    join("squads", r#"{"players":["eve","fay"],"attributes":{"region":"eu"}}"#);
    let base = format!("http://{}", app.server.address);
    let mut browser = Browser::start(1280, 900);
    browser.navigate(&format!("{base}/console#key={}&ladder={LADDER}", app.admin));
    settled(&mut browser, "the leaderboard");
    visit(&mut browser, &format!("ladder={LADDER}&view=queues"), "document.querySelector('#queues tbody tr')");
    let rows = cells(&mut browser, "#queues");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0], ["duel", "pair", "0", "none", "400 + 10/s up to 400", "1", "10.0 min", "none", "2"].map(String::from).to_vec());
    assert_eq!(rows[1][..3], ["squads", "teams of 2", "1"].map(String::from));
    assert!(rows[1][3].ends_with(" s"), "the longest wait: {rows:?}");
    assert_eq!(rows[1][4..], ["0 + 0/s up to 0", "2", "2.0 min", "region", "0"].map(String::from));
    let feed = app.ok("GET", &format!("/v1/ladders/{LADDER}/queues/duel/matches"), &app.admin, None);
    let recent = cells(&mut browser, "#recent-duel");
    let ids: Vec<&str> = recent.iter().map(|r| r[1].as_str()).collect();
    let mut expected: Vec<&str> = feed["matches"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    expected.reverse();
    assert_eq!(ids, expected, "the latest matches, newest first");
    assert_eq!(recent[1][0], "1");
    assert!(recent[1][3].contains("ann (1500.0)") && recent[1][3].contains(" vs ") && recent[1][3].contains("ben (1500.0)"), "{recent:?}");
    assert!(browser.eval("document.querySelector('#recent-squads')").is_null(), "squads has made none");
    browser.screenshot(&artifact(&format!("{backend:?}-queues.png").to_lowercase()));
    assert_eq!(browser.problems(), Vec::<String>::new(), "no error and no policy violation");
    // A read key sees the queues, not the feed (a report key's).
    let mut browser = Browser::start(1280, 900);
    browser.navigate(&format!("{base}/console#key={}&ladder={LADDER}&view=queues", app.read));
    settled(&mut browser, "the queues, read key");
    browser.wait("document.querySelector('#queues tbody tr')", "the queues' lines");
    assert_eq!(cells(&mut browser, "#queues").len(), 2);
    assert!(!browser.eval("document.getElementById('recent-needs-key')").is_null());
    assert!(browser.eval("document.querySelector('.recent')").is_null());
    assert_eq!(browser.problems(), Vec::<String>::new(), "no error and no policy violation");
}

/// The webhooks page (admin keys): each subscription's URL, kinds and state; a failing one is
/// marked with its failures in a row and last error, as the API gives them.
fn the_webhook_page_marks_a_failing_subscription(backend: Backend) {
    let receiver = crate::receiver::Receiver::start();
    let app = TestApp::spawn_args(
        backend,
        &["--rate-limit", "0", "--auth-failure-limit", "0", "--webhook-interval-ms", "50", "--webhook-timeout-ms", "1000", "--webhook-backoff-ms", "60000"],
    );
    app.put_ladder(LADDER, r#"{"k_policy":{"policy":"constant","k":32}}"#);
    let subscribe = |name: &str, body: String| app.ok("PUT", &format!("/v1/ladders/{LADDER}/webhooks/{name}"), &app.admin, Some(&body));
    subscribe("good", format!(r#"{{"url": "{}"}}"#, receiver.url("/good")));
    // Port 9 (discard) refuses connections here.
    subscribe("bad", r#"{"url": "http://127.0.0.1:9/hooks", "kinds": ["pair", "season_end"]}"#.to_owned());
    subscribe("quiet", format!(r#"{{"url": "{}", "paused": true}}"#, receiver.url("/quiet")));
    app.ok("POST", &format!("/v1/ladders/{LADDER}/matches"), &app.report, Some(r#"{"id":"m1","a":"ann","b":"ben","score_a":1}"#));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let webhooks = loop {
        let list = app.ok("GET", &format!("/v1/ladders/{LADDER}/webhooks"), &app.admin, None);
        let by_name = |name: &str| list["webhooks"].as_array().unwrap().iter().find(|w| w["name"] == name).unwrap().clone();
        if by_name("bad")["failing"] == Value::Bool(true) && by_name("good")["delivered"] == 1 {
            break list;
        }
        assert!(std::time::Instant::now() < deadline, "the subscriptions' first attempts: {list}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let bad = webhooks["webhooks"].as_array().unwrap().iter().find(|w| w["name"] == "bad").unwrap().clone();
    let base = format!("http://{}", app.server.address);
    let mut browser = Browser::start(1280, 900);
    browser.navigate(&format!("{base}/console#key={}&ladder={LADDER}", app.admin));
    settled(&mut browser, "the leaderboard");
    assert!(browser.eval("[...document.querySelectorAll('#nav a')].some(a => a.textContent === 'Webhooks')").as_bool().unwrap(), "an admin's navigation has Webhooks");
    visit(&mut browser, &format!("ladder={LADDER}&view=webhooks"), "document.querySelector('#webhooks tbody tr')");
    let rows = cells(&mut browser, "#webhooks");
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows[0][..7], ["bad", "http://127.0.0.1:9/hooks", "pair, season_end", "failing", "0", "0 of 1", "1"].map(String::from), "{rows:?}");
    assert_eq!(rows[0][8], bad["last_error"].as_str().unwrap(), "the last error as the API gives it");
    assert!(rows[0][8].contains("cannot connect"), "{rows:?}");
    assert!(rows[0][7].ends_with(" UTC") && rows[0][9].ends_with(" UTC"), "failing since and the next attempt: {rows:?}");
    assert_eq!(rows[1][2..7], ["every kind", "up to date", "1", "1 of 1", "0"].map(String::from), "{rows:?}");
    assert_eq!(rows[2][3], "paused");
    assert_eq!(browser.eval("document.querySelector('#webhooks tbody tr.failing').dataset.webhook"), Value::from("bad"), "the failing line is marked");
    assert_eq!(browser.eval("document.querySelectorAll('#webhooks tbody tr.failing').length"), Value::from(1));
    assert_eq!(browser.eval("document.getElementById('webhooks-failing').textContent"), Value::from("1 of 3 failing: bad"));
    browser.screenshot(&artifact(&format!("{backend:?}-webhooks.png").to_lowercase()));
    assert_eq!(browser.problems(), Vec::<String>::new(), "no error and no policy violation");
    // A read key: no Webhooks in the navigation, and the view says who may see it.
    let mut browser = Browser::start(1280, 900);
    browser.navigate(&format!("{base}/console#key={}&ladder={LADDER}&view=webhooks", app.read));
    settled(&mut browser, "the webhooks, read key");
    browser.wait("document.getElementById('webhooks-need-admin')", "the admin-only note");
    assert!(!browser.eval("[...document.querySelectorAll('#nav a')].some(a => a.textContent === 'Webhooks')").as_bool().unwrap());
    assert_eq!(browser.problems(), Vec::<String>::new(), "no error and no policy violation");
}
