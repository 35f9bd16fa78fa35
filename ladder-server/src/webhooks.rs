//! Webhooks (docs/ladder-server.md, "Webhooks"): a subscription sends a ladder's journal
//! entries of the kinds it names to a URL, one at a time in `seq` order, from a cursor kept
//! in the database, retried with backoff until the receiver answers 2xx. Each delivery is
//! signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`,
//! `webhook-signature: v1,<base64 HMAC-SHA256>` with the subscription's `whsec_` secret), so
//! a receiver verifies it with that specification's libraries.
//!
//! This module holds what a subscription is (its checked request, its secret, its view) and
//! what one delivery carries (the body built from the stored entry at send time, its id and
//! signature); [`crate::deliver`] runs the deliveries.

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::model::JournalEntry;

/// The journal kinds a subscription may name.
pub const KINDS: [&str; 9] = ["pair", "team", "free_for_all", "import", "season_end", "decay", "period_end", "annul", "correct"];

/// The longest URL.
pub const MAX_URL: usize = 2048;

/// The most subscriptions one ladder has.
pub const MAX_PER_LADDER: i64 = 32;

/// The secret's prefix (the Standard Webhooks form: `whsec_` and the key in base64).
pub const SECRET_PREFIX: &str = "whsec_";

/// A generated key's length in bytes.
const KEY_BYTES: usize = 32;

/// The shortest and longest key a caller may give, in bytes (the specification's range).
const KEY_RANGE: std::ops::RangeInclusive<usize> = 24..=64;

/// Where a new subscription starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// After the ladder's newest entry (the default): only what happens from now on.
    Now,
    /// After this `seq` (0: the whole journal).
    After(i64),
}

/// The body of `PUT /v1/ladders/{ladder}/webhooks/{name}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PutBody {
    url: Option<serde_json::Value>,
    #[serde(default)]
    kinds: Option<serde_json::Value>,
    #[serde(default)]
    secret: Option<serde_json::Value>,
    #[serde(default)]
    from: Option<serde_json::Value>,
    #[serde(default)]
    paused: Option<serde_json::Value>,
}

/// A checked `PUT` of a subscription (`Debug` hides the secret).
#[derive(Clone, PartialEq, Eq)]
pub struct WebhookPut {
    /// Where deliveries go (`http` or `https`).
    pub url: String,
    /// The kinds it sends, in [`KINDS`] order; empty: every kind.
    pub kinds: Vec<String>,
    /// The secret (`whsec_…`) the caller chose; `None`: the server makes one (a new
    /// subscription) or keeps the one it has.
    pub secret: Option<String>,
    /// Where a new subscription starts (an existing one keeps its cursor).
    pub from: Start,
    /// Deliveries wait while paused (the cursor stays).
    pub paused: bool,
}

impl std::fmt::Debug for WebhookPut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookPut")
            .field("url", &self.url)
            .field("kinds", &self.kinds)
            .field("secret", &self.secret.as_ref().map(|_| "…"))
            .field("from", &self.from)
            .field("paused", &self.paused)
            .finish()
    }
}

impl WebhookPut {
    /// Reads and checks the body.
    ///
    /// # Errors
    /// 400 for a body that is not a JSON object, 422 naming the field out of form.
    pub fn parse(body: &[u8]) -> Result<Self, ApiError> {
        let body: PutBody = serde_json::from_slice(body).map_err(|e| ApiError::bad_request(format!("webhook: {e}")))?;
        let url = match body.url {
            Some(serde_json::Value::String(url)) => check_url(&url)?,
            Some(other) => return Err(field("url", format!("must be a string, got {other}"))),
            None => return Err(field("url", "is missing: send {\"url\": \"https://…\"}")),
        };
        let kinds = match body.kinds {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::Array(items)) => check_kinds(&items)?,
            Some(other) => return Err(field("kinds", format!("must be an array of journal kinds, got {other}"))),
        };
        let secret = match body.secret {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(secret)) => {
                key_of(&secret)?;
                Some(secret)
            }
            Some(_) => return Err(field("secret", "must be a string (whsec_ and the key in base64)")),
        };
        let from = match body.from {
            None | Some(serde_json::Value::Null) => Start::Now,
            Some(serde_json::Value::String(text)) if text == "now" => Start::Now,
            Some(serde_json::Value::Number(n)) if n.as_i64().is_some_and(|n| n >= 0) => Start::After(n.as_i64().unwrap_or(0)),
            Some(other) => return Err(field("from", format!("must be \"now\" or a journal seq (0 for the whole journal), got {other}"))),
        };
        let paused = match body.paused {
            None | Some(serde_json::Value::Null) => false,
            Some(serde_json::Value::Bool(paused)) => paused,
            Some(other) => return Err(field("paused", format!("must be true or false, got {other}"))),
        };
        Ok(Self { url, kinds, secret, from, paused })
    }

    /// The kinds as stored (a JSON array's text).
    #[must_use]
    pub fn kinds_json(&self) -> String {
        serde_json::Value::from(self.kinds.clone()).to_string()
    }
}

/// 409: the ladder has as many subscriptions as it may ([`MAX_PER_LADDER`]).
#[must_use]
pub fn too_many(count: i64) -> ApiError {
    ApiError::conflict("too_many_webhooks", format!("the ladder has {count} webhooks, the most it may have; delete one first"))
}

/// A 422 naming `name`.
fn field(name: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::invalid("invalid_webhook", format!("{name} {message}"))
}

/// An `http` or `https` URL with a host, no user name or password (the subscription list
/// shows URLs) and no fragment.
///
/// # Errors
/// 422 naming `url`.
pub fn check_url(text: &str) -> Result<String, ApiError> {
    if text.len() > MAX_URL {
        return Err(field("url", format!("is longer than {MAX_URL} bytes")));
    }
    let uri: axum::http::Uri = text.parse().map_err(|e| field("url", format!("{text:?} is not a URL: {e}")))?;
    match uri.scheme_str() {
        Some("http" | "https") => {}
        _ => return Err(field("url", format!("{text:?} must start with http:// or https://"))),
    }
    let Some(authority) = uri.authority() else {
        return Err(field("url", format!("{text:?} has no host")));
    };
    if authority.as_str().contains('@') {
        return Err(field("url", "must not carry a user name or password (receivers check the signature instead)"));
    }
    if authority.host().is_empty() {
        return Err(field("url", format!("{text:?} has no host")));
    }
    if text.contains('#') {
        return Err(field("url", "must not have a fragment"));
    }
    Ok(text.to_owned())
}

/// The kinds, each known and once, in [`KINDS`] order.
fn check_kinds(items: &[serde_json::Value]) -> Result<Vec<String>, ApiError> {
    if items.is_empty() {
        return Err(field("kinds", "is empty: leave it out to send every kind"));
    }
    let mut named = Vec::with_capacity(items.len());
    for item in items {
        let Some(kind) = item.as_str() else {
            return Err(field("kinds", format!("must hold strings, got {item}")));
        };
        if !KINDS.contains(&kind) {
            return Err(field("kinds", format!("{kind:?} is not a journal kind (one of {})", KINDS.join(", "))));
        }
        if named.contains(&kind) {
            return Err(field("kinds", format!("names {kind:?} twice")));
        }
        named.push(kind);
    }
    Ok(KINDS.iter().filter(|kind| named.contains(kind)).map(|kind| (*kind).to_owned()).collect())
}

/// The key of a `whsec_` secret.
///
/// # Errors
/// 422 naming `secret` when the text is not `whsec_` and base64 of 24 to 64 bytes.
pub fn key_of(secret: &str) -> Result<Vec<u8>, ApiError> {
    let Some(encoded) = secret.strip_prefix(SECRET_PREFIX) else {
        return Err(field("secret", format!("must start with {SECRET_PREFIX}")));
    };
    let key = base64::engine::general_purpose::STANDARD.decode(encoded).map_err(|e| field("secret", format!("is not {SECRET_PREFIX} and base64: {e}")))?;
    if !KEY_RANGE.contains(&key.len()) {
        return Err(field("secret", format!("holds a key of {} bytes; it must have {} to {}", key.len(), KEY_RANGE.start(), KEY_RANGE.end())));
    }
    Ok(key)
}

/// A new secret: `whsec_` and 32 random bytes in base64.
///
/// # Errors
/// The OS has no randomness.
pub fn new_secret() -> Result<String, ApiError> {
    let mut key = [0u8; KEY_BYTES];
    getrandom::fill(&mut key).map_err(|e| ApiError::internal(format!("no randomness: {e}")))?;
    Ok(format!("{SECRET_PREFIX}{}", base64::engine::general_purpose::STANDARD.encode(key)))
}

/// The `webhook-signature` of a delivery: `v1,` and the base64 HMAC-SHA256 of
/// `{id}.{timestamp}.{body}` under the secret's key (ring's HMAC).
///
/// # Errors
/// 500 when the stored secret is out of form.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, ApiError> {
    let key = key_of(secret).map_err(|e| ApiError::internal(format!("stored webhook secret: {}", e.message)))?;
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key);
    let mut context = ring::hmac::Context::with_key(&key);
    context.update(id.as_bytes());
    context.update(b".");
    context.update(timestamp.to_string().as_bytes());
    context.update(b".");
    context.update(body);
    Ok(format!("v1,{}", base64::engine::general_purpose::STANDARD.encode(context.sign().as_ref())))
}

/// The `webhook-id` of a ladder's entry: the same for every attempt and every subscription
/// (a receiver drops one it has seen).
#[must_use]
pub fn message_id(ladder: &str, seq: i64) -> String {
    format!("msg_{ladder}_{seq}")
}

/// The body of a delivery, built from the entry as stored when it is sent (so an erased
/// player's name is never in one sent after the erasure):
/// `{"type": "journal.KIND", "timestamp": RFC 3339 of the entry's time, "data": {"ladder":
/// NAME, …the entry as `GET …/matches` shows it}}`.
///
/// # Errors
/// 500 when the entry does not serialize.
pub fn payload(ladder: &str, entry: &JournalEntry) -> Result<String, ApiError> {
    #[derive(Serialize)]
    struct Data<'a> {
        ladder: &'a str,
        #[serde(flatten)]
        entry: &'a JournalEntry,
    }
    #[derive(Serialize)]
    struct Body<'a> {
        #[serde(rename = "type")]
        kind: String,
        timestamp: String,
        data: Data<'a>,
    }
    let body = Body { kind: format!("journal.{}", entry.kind), timestamp: rfc3339(entry.time), data: Data { ladder, entry } };
    serde_json::to_string(&body).map_err(|e| ApiError::internal(format!("webhook body: {e}")))
}

/// Unix seconds as RFC 3339 in UTC, to the millisecond (`2026-11-29T15:30:29.123Z`).
#[must_use]
pub fn rfc3339(seconds: f64) -> String {
    #[allow(clippy::cast_possible_truncation)]
    let millis = (seconds * 1000.0).round() as i64;
    let (days, rest) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = crate::cron::civil(days);
    let (hour, minute, second, milli) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{milli:03}Z")
}

/// Seconds to wait before the next attempt after `attempts` failed ones in a row: `base`
/// doubled each time, at most an hour, less up to a fifth at random (so that receivers
/// failing together are not retried together).
#[must_use]
pub fn backoff(base: f64, attempts: i64) -> f64 {
    let doubled = base * 2f64.powi(i32::try_from(attempts.clamp(1, 30) - 1).unwrap_or(29));
    let mut byte = [0u8; 1];
    let jitter = if getrandom::fill(&mut byte).is_ok() { f64::from(byte[0]) / 255.0 * 0.2 } else { 0.0 };
    doubled.min(3600.0) * (1.0 - jitter)
}

/// A subscription as stored, with how its deliveries stand (`Debug` hides the secret).
#[derive(Clone, Serialize)]
pub struct Webhook {
    /// The row id.
    #[serde(skip)]
    pub id: i64,
    /// The ladder's row id.
    #[serde(skip)]
    pub ladder_id: i64,
    /// The ladder.
    pub ladder: String,
    /// Its name in the ladder.
    pub name: String,
    /// Where deliveries go.
    pub url: String,
    /// The kinds it sends; empty: every kind.
    pub kinds: Vec<String>,
    /// The signing secret (shown only in the answer of a `PUT`).
    #[serde(skip)]
    pub secret: String,
    /// Deliveries wait.
    pub paused: bool,
    /// When it was made (Unix seconds).
    pub created: f64,
    /// Every entry up to this `seq` is delivered (or not of its kinds).
    pub delivered_through: i64,
    /// The ladder's newest entry a delivery may send now (chained).
    pub last_seq: i64,
    /// Entries delivered in all.
    pub delivered: i64,
    /// Failed attempts in a row at the entry after the cursor (0: not failing).
    pub attempts: i64,
    /// When the failures in a row began.
    pub failing_since: Option<f64>,
    /// The last failure, in words.
    pub last_error: Option<String>,
    /// When an attempt last ended.
    pub last_attempt: Option<f64>,
    /// Not before this time (Unix seconds) is the next attempt made.
    pub next_attempt: f64,
    /// The `PUT`s it has had (a failure is recorded against the revision it was sent under).
    #[serde(skip)]
    pub revision: i64,
}

impl std::fmt::Debug for Webhook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Webhook")
            .field("ladder", &self.ladder)
            .field("name", &self.name)
            .field("url", &self.url)
            .field("kinds", &self.kinds)
            .field("paused", &self.paused)
            .field("delivered_through", &self.delivered_through)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

impl Webhook {
    /// Failing: its last attempt did not get a 2xx, and it is not paused (a paused
    /// subscription is an operator's decision, not an alert).
    #[must_use]
    pub fn failing(&self) -> bool {
        self.attempts > 0 && !self.paused
    }

    /// Whether `kind` is one it sends.
    #[must_use]
    pub fn sends(&self, kind: &str) -> bool {
        self.kinds.is_empty() || self.kinds.iter().any(|k| k == kind)
    }

    /// Reads the stored kinds (a JSON array's text).
    ///
    /// # Errors
    /// 500 when the stored text does not parse.
    pub fn kinds_from(text: &str) -> Result<Vec<String>, ApiError> {
        serde_json::from_str(text).map_err(|e| ApiError::internal(format!("stored webhook kinds: {e}")))
    }
}

/// How the list and `GET` show a subscription: its fields and `failing`, without the
/// secret.
#[derive(Serialize)]
pub struct WebhookView<'a> {
    /// The subscription.
    #[serde(flatten)]
    pub webhook: &'a Webhook,
    /// Its last attempt did not get a 2xx.
    pub failing: bool,
    /// The secret: only in a `PUT`'s answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<&'a str>,
}

impl<'a> WebhookView<'a> {
    /// The view, with the secret when `show_secret`.
    #[must_use]
    pub fn of(webhook: &'a Webhook, show_secret: bool) -> Self {
        Self { webhook, failing: webhook.failing(), secret: show_secret.then_some(webhook.secret.as_str()) }
    }
}

/// What one attempt did, as the store records it.
#[derive(Debug, Clone, PartialEq)]
pub enum Attempt {
    /// The receiver answered 2xx for the entry `seq`: the cursor moves to it.
    Delivered(i64),
    /// No entry of the subscription's kinds up to `seq`: the cursor moves to it.
    Skipped(i64),
    /// The attempt failed; the next one waits until `retry_at`. Recorded only while the
    /// subscription is at `revision` (a `PUT` since, which retries at once, wins).
    Failed {
        /// What went wrong, in words.
        error: String,
        /// When to try again (Unix seconds).
        retry_at: f64,
        /// The subscription's revision the attempt was sent under.
        revision: i64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_match_the_standard_webhooks_test_vector() {
        // The specification's published example (its reference libraries' tests).
        let signature = sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, br#"{"test": 2432232314}"#);
        assert_eq!(signature.unwrap(), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        // Any other byte signs otherwise.
        let other = sign("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_331, br#"{"test": 2432232314}"#);
        assert_ne!(other.unwrap(), "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn new_secrets_are_well_formed_and_differ() {
        let (a, b) = (new_secret().unwrap(), new_secret().unwrap());
        assert_ne!(a, b);
        assert_eq!(key_of(&a).unwrap().len(), KEY_BYTES);
    }

    #[test]
    fn bodies_are_checked_by_field() {
        let ok = WebhookPut::parse(br#"{"url": "https://example.com/hooks", "kinds": ["season_end", "pair"]}"#).unwrap();
        assert_eq!(ok.kinds, ["pair", "season_end"]);
        assert_eq!(ok.from, Start::Now);
        let message = |body: &str| WebhookPut::parse(body.as_bytes()).unwrap_err().message;
        assert!(message(r#"{"url": "ftp://example.com"}"#).starts_with("url "));
        assert!(message(r#"{"url": "https://user:pw@example.com"}"#).starts_with("url "));
        assert!(message(r#"{"url": "https://example.com", "kinds": ["pair", "pair"]}"#).starts_with("kinds "));
        assert!(message(r#"{"url": "https://example.com", "kinds": ["goal"]}"#).starts_with("kinds "));
        assert!(message(r#"{"url": "https://example.com", "kinds": []}"#).starts_with("kinds "));
        assert!(message(r#"{"url": "https://example.com", "secret": "whsec_c2hvcnQ="}"#).starts_with("secret "));
        assert!(message(r#"{"url": "https://example.com", "from": -1}"#).starts_with("from "));
        assert!(message(r#"{"url": "https://example.com", "paused": "yes"}"#).starts_with("paused "));
        assert!(message(r#"{"kinds": ["pair"]}"#).starts_with("url "));
        assert!(message(r#"{"url": "https://example.com", "colour": 1}"#).contains("colour"));
    }

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_614_265_330.5), "2021-02-25T15:02:10.500Z");
    }

    #[test]
    fn backoff_doubles_up_to_an_hour() {
        for attempts in 1..40 {
            let wait = backoff(2.0, attempts);
            let full = (2.0 * 2f64.powi(i32::try_from(attempts).unwrap() - 1)).min(3600.0);
            assert!(wait <= full && wait >= full * 0.8, "{attempts}: {wait} of {full}");
        }
    }
}
