//! Request limits: each API key's request rate, and failed authentications per client
//! address.
//!
//! A key's rate holds across every server on one database: on PostgreSQL each server leases
//! tokens from the key's shared bucket (`rate_buckets`) a block at a time (a tenth of a
//! second's worth) and spends them locally, so a request costs a database round trip only
//! once per block; leased tokens unused after a second are dropped, so a server cannot
//! hoard them. On SQLite (one server) the bucket is local. Either way the bucket holds one
//! second's worth (`--rate-limit`) and refills continuously.
//!
//! Failed authentications (401, 403) are limited per client address before any key is
//! looked up, so guessing keys or scanning for ladders costs the database nothing once an
//! address has used its allowance.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::ApiError;
use crate::store::LadderStore;

/// How long leased tokens stay usable.
const LEASE_LIFE: Duration = Duration::from_secs(1);

/// The most client addresses tracked before idle ones are forgotten.
const MAX_TRACKED: usize = 100_000;

/// A local token bucket.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

impl Bucket {
    fn full(capacity: f64) -> Self {
        Self { tokens: capacity, at: Instant::now() }
    }

    /// Refills at `rate` per second up to `capacity`.
    fn refill(&mut self, rate: f64, capacity: f64) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * rate).min(capacity);
        self.at = now;
    }

    /// Seconds until one token is there.
    fn wait(&self, rate: f64) -> u64 {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let seconds = ((1.0 - self.tokens) / rate).ceil().max(1.0) as u64;
        seconds
    }
}

/// What a server holds of one key's budget.
#[derive(Debug)]
enum KeyBudget {
    /// Not used yet.
    New,
    /// One server (SQLite): the whole bucket, here.
    Local(Bucket),
    /// Tokens leased from the shared bucket (PostgreSQL), usable until `expires`.
    Leased { tokens: u32, expires: Instant },
}

/// The limits of one server process.
pub struct Limits {
    rate: u32,
    failures_per_minute: u32,
    keys: Mutex<HashMap<String, Arc<tokio::sync::Mutex<KeyBudget>>>>,
    failures: Mutex<HashMap<IpAddr, Bucket>>,
}

impl Limits {
    /// `rate` requests per second per key (0: none); `failures_per_minute` failed
    /// authentications per client address (0: none).
    #[must_use]
    pub fn new(rate: u32, failures_per_minute: u32) -> Self {
        Self { rate, failures_per_minute, keys: Mutex::default(), failures: Mutex::default() }
    }

    /// 429 when `address` has used its failed authentications.
    ///
    /// # Errors
    /// As described.
    pub fn check_address(&self, address: Option<IpAddr>) -> Result<(), ApiError> {
        let (Some(address), capacity) = (address, f64::from(self.failures_per_minute)) else {
            return Ok(());
        };
        if self.failures_per_minute == 0 {
            return Ok(());
        }
        let mut failures = self.failures.lock().map_err(|_| ApiError::internal("limits poisoned"))?;
        if let Some(bucket) = failures.get_mut(&address) {
            bucket.refill(capacity / 60.0, capacity);
            if bucket.tokens < 1.0 {
                metrics::counter!(crate::telemetry::RATE_LIMITED, "limit" => "auth_failures").increment(1);
                return Err(ApiError::rate_limited(bucket.wait(capacity / 60.0), "too many failed authentications from this address; retry later"));
            }
        }
        Ok(())
    }

    /// Counts a failed authentication of `address`.
    pub fn record_failure(&self, address: Option<IpAddr>) {
        metrics::counter!(crate::telemetry::AUTH_FAILURES).increment(1);
        let (Some(address), capacity) = (address, f64::from(self.failures_per_minute)) else {
            return;
        };
        if self.failures_per_minute == 0 {
            return;
        }
        if let Ok(mut failures) = self.failures.lock() {
            if failures.len() >= MAX_TRACKED {
                failures.retain(|_, b| {
                    b.refill(capacity / 60.0, capacity);
                    b.tokens < capacity
                });
            }
            let bucket = failures.entry(address).or_insert_with(|| Bucket::full(capacity));
            bucket.refill(capacity / 60.0, capacity);
            bucket.tokens = (bucket.tokens - 1.0).max(0.0);
        }
    }

    /// Spends one request of key `id`'s rate.
    ///
    /// # Errors
    /// 429 with the seconds to wait; database failures of a lease.
    pub async fn spend(&self, store: &dyn LadderStore, id: &str) -> Result<(), ApiError> {
        if self.rate == 0 {
            return Ok(());
        }
        let rate = f64::from(self.rate);
        let budget = {
            let mut keys = self.keys.lock().map_err(|_| ApiError::internal("limits poisoned"))?;
            if keys.len() >= MAX_TRACKED {
                // (One budget per key and per player who sent a token: the idle ones go; a
                // budget made again starts full, or leases again.)
                keys.retain(|_, budget| Arc::strong_count(budget) > 1);
            }
            Arc::clone(keys.entry(id.to_owned()).or_insert_with(|| Arc::new(tokio::sync::Mutex::new(KeyBudget::New))))
        };
        let mut budget = budget.lock().await;
        let limited = || {
            metrics::counter!(crate::telemetry::RATE_LIMITED, "limit" => "key").increment(1);
            ApiError::rate_limited(1, "too many requests for this key; retry in 1 s")
        };
        if let KeyBudget::Local(bucket) = &mut *budget {
            bucket.refill(rate, rate);
            if bucket.tokens < 1.0 {
                metrics::counter!(crate::telemetry::RATE_LIMITED, "limit" => "key").increment(1);
                return Err(ApiError::rate_limited(bucket.wait(rate), "too many requests for this key; retry in 1 s"));
            }
            bucket.tokens -= 1.0;
            return Ok(());
        }
        let now = Instant::now();
        if let KeyBudget::Leased { tokens, expires } = &mut *budget {
            if *expires > now && *tokens > 0 {
                *tokens -= 1;
                return Ok(());
            }
        }
        match store.lease_tokens(id, rate, rate, (self.rate / 10).max(1)) {
            None => {
                let mut bucket = Bucket::full(rate);
                bucket.tokens -= 1.0;
                *budget = KeyBudget::Local(bucket);
                Ok(())
            }
            Some(lease) => {
                let granted = lease.await?;
                if granted == 0 {
                    *budget = KeyBudget::Leased { tokens: 0, expires: now };
                    return Err(limited());
                }
                *budget = KeyBudget::Leased { tokens: granted - 1, expires: now + LEASE_LIFE };
                Ok(())
            }
        }
    }
}
