//! `GET /console`: the operator's console, a page and its script and style compiled into
//! the binary (`ladder-server/console/`). It is static: the page calls the public JSON API
//! with the key its user types in (kept in the tab's `sessionStorage`), like any other
//! client, so it needs no route of its own and no key to load. Its responses carry a strict
//! Content-Security-Policy: nothing but this origin's own script, style and requests, no
//! inline script or style, no framing, and Trusted Types required (the script never writes
//! HTML as text).

use std::sync::Arc;

use axum::http::{header, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use super::AppState;

/// The page.
const INDEX: &str = include_str!("../../console/index.html");
/// The script (plain JavaScript, no dependencies).
const SCRIPT: &str = include_str!("../../console/console.js");
/// The matchmaking queues' view (registered before the main script runs).
const QUEUES_SCRIPT: &str = include_str!("../../console/queues.js");
/// The webhook subscriptions' view (registered before the main script runs).
const WEBHOOKS_SCRIPT: &str = include_str!("../../console/webhooks.js");
/// The style.
const STYLE: &str = include_str!("../../console/console.css");
/// The icon (so that the browser's request for one finds it).
const ICON: &str = include_str!("../../console/icon.svg");

/// The console's Content-Security-Policy: its own files and requests to its own origin only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'; trusted-types 'none'";

/// The routes.
pub fn router() -> Router<Arc<AppState>> {
    Router::new()
        .route("/console", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route("/console/", get(|| async { asset("text/html; charset=utf-8", INDEX) }))
        .route("/console/console.js", get(|| async { asset("text/javascript; charset=utf-8", SCRIPT) }))
        .route("/console/queues.js", get(|| async { asset("text/javascript; charset=utf-8", QUEUES_SCRIPT) }))
        .route("/console/webhooks.js", get(|| async { asset("text/javascript; charset=utf-8", WEBHOOKS_SCRIPT) }))
        .route("/console/console.css", get(|| async { asset("text/css; charset=utf-8", STYLE) }))
        .route("/console/icon.svg", get(|| async { asset("image/svg+xml", ICON) }))
}

/// One of the console's files with its security headers. `no-cache`: a browser asks again
/// (the files are small) and so never runs a script older than the server.
fn asset(content_type: &'static str, body: &'static str) -> Response {
    let headers = [
        (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
        (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY)),
        (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        (header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")),
        (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        (HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin")),
    ];
    (headers, body).into_response()
}
