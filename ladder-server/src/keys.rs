//! API keys: `elo_<id>_<secret>`, where the 16-hex-digit id is public (it names the key in
//! the database and in `keys revoke`) and the 64-hex-digit secret is known only to its
//! holder: the database keeps its SHA-256, compared in constant time.

use sha2::{Digest, Sha256};

/// What a key may do: each scope includes the ones below it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Scope {
    /// Players, leaderboards, the journal.
    Read,
    /// Read, and report matches.
    Report,
    /// Everything: ladders, season ends, decay.
    Admin,
}

impl Scope {
    /// Parses `read`, `report` or `admin`.
    ///
    /// # Errors
    /// Any other word.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "read" => Ok(Self::Read),
            "report" => Ok(Self::Report),
            "admin" => Ok(Self::Admin),
            other => Err(format!("scope {other:?} is not read, report or admin")),
        }
    }

    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Report => "report",
            Self::Admin => "admin",
        }
    }
}

/// A new key: its public id, the whole key to hand out once, and the hash to store.
pub struct NewKey {
    /// Public id.
    pub id: String,
    /// `elo_<id>_<secret>`.
    pub key: String,
    /// SHA-256 of the secret.
    pub hash: [u8; 32],
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Makes a key from the operating system's random numbers.
///
/// # Errors
/// The OS has no randomness to give.
pub fn generate() -> Result<NewKey, String> {
    let mut bytes = [0u8; 40];
    getrandom::fill(&mut bytes).map_err(|e| format!("no randomness from the OS: {e}"))?;
    let id = hex(&bytes[..8]);
    let secret = hex(&bytes[8..]);
    Ok(NewKey { key: format!("elo_{id}_{secret}"), hash: hash(&secret), id })
}

/// SHA-256 of a secret.
#[must_use]
pub fn hash(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

/// Splits `elo_<id>_<secret>` into id and secret; `None` for anything else.
#[must_use]
pub fn split(key: &str) -> Option<(&str, &str)> {
    let rest = key.strip_prefix("elo_")?;
    let (id, secret) = rest.split_once('_')?;
    let hex_of = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hex_of(id, 16) && hex_of(secret, 64)).then_some((id, secret))
}

/// Compares two hashes in time that does not depend on where they differ.
#[must_use]
pub fn same_hash(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let difference = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(difference) == 0
}
