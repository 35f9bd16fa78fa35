//! Browsers: a page from an allowed origin reads a ladder with a read key (CORS: the
//! preflight for the `Authorization` header is answered); a page from another origin is
//! blocked by the browser; with no `--cors-origin` nothing is allowed. Run in headless
//! Chromium (Debian's `chromium`) against the real server.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Command;

use crate::helpers::{call, Backend, TempDir, TestApp};
use crate::RULES;

/// Serves `page` at every path of a new port on 127.0.0.1; returns the origin.
fn serve_page(page: String) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let origin = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    serve_on(listener, page);
    origin
}

/// Serves `page` on `listener` until the test process ends.
fn serve_on(listener: TcpListener, page: String) {
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 0).unwrap_or(false) && line != "\r\n" {
                line.clear();
            }
            let mut stream: TcpStream = reader.into_inner();
            let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}", page.len());
        }
    });
}

/// A page that calls the ladder with a read key and writes what happened into `#out`.
fn page(api: &str, key: &str) -> String {
    format!(
        r#"<!doctype html><html><body><pre id="out">pending</pre><script>
fetch("http://{api}/v1/ladders/main/leaderboard?limit=2", {{ headers: {{ "Authorization": "Bearer {key}" }} }})
  .then(r => r.json().then(j => {{ document.getElementById("out").textContent = "status " + r.status + " " + JSON.stringify(j) + " request-id " + r.headers.get("x-request-id"); }}))
  .catch(e => {{ document.getElementById("out").textContent = "blocked " + e; }});
</script></body></html>"#
    )
}

/// What the page at `origin` showed in headless Chromium.
fn chromium(origin: &str) -> String {
    let profile = TempDir::new("chromium");
    let output = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.0.display()))
        .arg(format!("{origin}/index.html"))
        .output()
        .expect("chromium runs (Debian's chromium package; cargo xtask test installs it)");
    let dom = String::from_utf8_lossy(&output.stdout).into_owned();
    let out = dom
        .split("<pre id=\"out\">")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("no page from chromium: {dom}{}", String::from_utf8_lossy(&output.stderr)));
    out.replace("&quot;", "\"")
}

/// A raw request's head (for the preflight's headers).
fn head(address: &str, request: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream.write_all(request.as_bytes()).expect("send");
    let mut text = String::new();
    let _ = std::io::Read::read_to_string(&mut stream, &mut text);
    text.split("\r\n\r\n").next().unwrap_or("").to_ascii_lowercase()
}

#[test]
fn a_browser_reaches_the_ladder_only_from_an_allowed_origin() {
    // The allowed page's origin must be known before the server starts: take a free port.
    let allowed_listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let allowed_origin = format!("http://127.0.0.1:{}", allowed_listener.local_addr().unwrap().port());
    drop(allowed_listener);
    let app = TestApp::spawn_args(Backend::Sqlite, &["--rate-limit", "0", "--auth-failure-limit", "0", "--cors-origin", &allowed_origin]);
    app.put_ladder("main", RULES);
    app.ok("POST", "/v1/ladders/main/matches", &app.report, Some(r#"{"id":"m1","a":"alice","b":"bob","score_a":1}"#));
    let page = page(&app.server.address, &app.read);
    // The allowed origin's port, now serving the page.
    let listener = TcpListener::bind(allowed_origin.trim_start_matches("http://")).expect("the reserved port is free again");
    serve_on(listener, page.clone());
    let allowed = chromium(&allowed_origin);
    assert!(allowed.starts_with("status 200 "), "from {allowed_origin}: {allowed}");
    assert!(allowed.contains("\"player\":\"alice\"") && allowed.contains("\"rank\":1"), "{allowed}");
    assert!(!allowed.contains("request-id null"), "the request id is readable by the page: {allowed}");
    let other_origin = serve_page(page);
    let blocked = chromium(&other_origin);
    assert!(blocked.starts_with("blocked "), "from {other_origin}: {blocked}");

    // The preflight itself: allowed origin and headers, or no CORS headers at all.
    let preflight = |origin: &str| {
        head(
            &app.server.address,
            &format!("OPTIONS /v1/ladders/main/leaderboard HTTP/1.1\r\nHost: x\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: authorization\r\nConnection: close\r\n\r\n"),
        )
    };
    let yes = preflight(&allowed_origin);
    assert!(yes.starts_with("http/1.1 200") && yes.contains(&format!("access-control-allow-origin: {allowed_origin}")) && yes.contains("authorization"), "{yes}");
    let no = preflight(&other_origin);
    assert!(!no.contains("access-control-allow-origin"), "{no}");
    // Requests without an Origin are unchanged.
    assert_eq!(call(&app.server.address, "GET", "/healthz", None, None).unwrap().0, 200);
}

#[test]
fn without_cors_origins_no_browser_origin_is_allowed() {
    let app = TestApp::spawn(Backend::Sqlite);
    app.put_ladder("main", RULES);
    let origin = serve_page(page(&app.server.address, &app.read));
    let shown = chromium(&origin);
    assert!(shown.starts_with("blocked "), "{shown}");
    let preflight = head(
        &app.server.address,
        &format!("OPTIONS /v1/ladders/main/leaderboard HTTP/1.1\r\nHost: x\r\nOrigin: {origin}\r\nAccess-Control-Request-Method: GET\r\nConnection: close\r\n\r\n"),
    );
    assert!(!preflight.contains("access-control-allow-origin"), "{preflight}");
}
