//! Player tokens: JSON Web Tokens signed by the studio's identity provider, sent as
//! `Authorization: Bearer <JWT>` (told apart from API keys by their form: three base64url
//! parts joined by dots). A token acts as one player, named by its `sub` claim (or another
//! configured claim): it reads the public resources and that player's own, and can never
//! report, amend or administer ([`crate::http::auth`]).
//!
//! Checked with `jsonwebtoken` (no cryptography of ours): the key is chosen by the header's
//! `kid` (keys rotate by adding the new one first); the header's algorithm must be the one
//! that key allows (an RSA public key cannot be used as an HMAC secret, and `alg: none` is
//! never taken); the signature, `exp` (required) and `nbf` with [`LEEWAY_SECONDS`] of clock
//! leeway, and `iss` and `aud` when the server was given them. Each refusal says which check
//! failed, without echoing the token.

use std::path::Path;

use base64::Engine;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::Serialize;

use crate::error::ApiError;

/// Clock leeway for `exp` and `nbf`, in seconds.
pub const LEEWAY_SECONDS: u64 = 30;

/// The longest token taken, in bytes (an RS256 token with a few claims is under 1 KB).
pub const MAX_TOKEN_BYTES: usize = 8 * 1024;

/// One verification key: its `kid` (if any), the key, and the one algorithm it allows.
struct Key {
    kid: Option<String>,
    key: DecodingKey,
    algorithm: Algorithm,
}

/// Where the keys and rules come from (`elo-ladder serve --jwt-…`).
#[derive(Debug, Default, Clone)]
pub struct TokenOptions {
    /// `--jwt-secret-file`: an HS256 secret (the file's bytes, trailing whitespace ignored).
    pub secret_file: Option<std::path::PathBuf>,
    /// `--jwt-jwks`: a JSON Web Key Set (RSA, P-256 and Ed25519 public keys).
    pub jwks_file: Option<std::path::PathBuf>,
    /// `--jwt-public-key`: PEM public keys (RSA, P-256, Ed25519); each one's `kid` is its
    /// file name without the extension.
    pub public_key_files: Vec<std::path::PathBuf>,
    /// `--jwt-issuer`: the `iss` every token must carry.
    pub issuer: Option<String>,
    /// `--jwt-audience`: the `aud` every token must carry.
    pub audience: Option<String>,
    /// `--jwt-player-claim`: the claim naming the player (`sub` by default).
    pub player_claim: Option<String>,
}

/// The server's token checker.
pub struct Tokens {
    keys: Vec<Key>,
    issuer: Option<String>,
    audience: Option<String>,
    claim: String,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // (Never the keys.)
        f.debug_struct("Tokens").field("keys", &self.keys.len()).field("issuer", &self.issuer).field("audience", &self.audience).field("claim", &self.claim).finish()
    }
}

/// Reads an HS256 secret file: its bytes, trailing whitespace ignored; at least 32 bytes.
///
/// # Errors
/// The file cannot be read or is too short.
pub fn read_secret(path: &Path) -> Result<Vec<u8>, String> {
    let mut bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    while bytes.last().is_some_and(u8::is_ascii_whitespace) {
        bytes.pop();
    }
    if bytes.len() < 32 {
        return Err(format!("{}: an HS256 secret needs at least 32 bytes (it has {})", path.display(), bytes.len()));
    }
    Ok(bytes)
}

/// The one algorithm a JWK allows: its `alg` when given (and consistent with its type),
/// else the type's (RSA: RS256, P-256: ES256, Ed25519: EdDSA).
fn jwk_algorithm(jwk: &jsonwebtoken::jwk::Jwk) -> Result<Algorithm, String> {
    let by_type = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => Algorithm::ES256,
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => Algorithm::EdDSA,
        AlgorithmParameters::OctetKey(_) => return Err("symmetric keys do not belong in a key set; use --jwt-secret-file".to_owned()),
        _ => return Err("only RSA, P-256 and Ed25519 keys are taken".to_owned()),
    };
    match jwk.common.key_algorithm {
        None => Ok(by_type),
        Some(named) => {
            let named: Algorithm = named.to_string().parse().map_err(|_| format!("algorithm {named} is not taken"))?;
            if named == by_type {
                Ok(named)
            } else {
                Err(format!("its alg {named:?} does not fit its key type ({by_type:?})"))
            }
        }
    }
}

impl Tokens {
    /// The checker `options` describe; `None` when no key is configured (tokens are then
    /// refused).
    ///
    /// # Errors
    /// A file that cannot be read, or a key that is not taken, named with its file.
    pub fn load(options: &TokenOptions) -> Result<Option<Self>, String> {
        let mut keys = Vec::new();
        if let Some(path) = &options.secret_file {
            keys.push(Key { kid: None, key: DecodingKey::from_secret(&read_secret(path)?), algorithm: Algorithm::HS256 });
        }
        if let Some(path) = &options.jwks_file {
            let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let set: JwkSet = serde_json::from_str(&text).map_err(|e| format!("{}: not a JSON Web Key Set: {e}", path.display()))?;
            let before = keys.len();
            let mut skipped = Vec::new();
            for (i, jwk) in set.keys.iter().enumerate() {
                let describe = |e: String| format!("{}: key {i} ({}): {e}", path.display(), jwk.common.key_id.as_deref().unwrap_or("no kid"));
                // A provider's set may also publish encryption keys and algorithms this server
                // does not take: those are skipped (and logged), not fatal at a restart.
                let usable = if jwk.common.public_key_use == Some(jsonwebtoken::jwk::PublicKeyUse::Encryption) {
                    Err("an encryption key (use: enc)".to_owned())
                } else {
                    jwk_algorithm(jwk).and_then(|algorithm| DecodingKey::from_jwk(jwk).map(|key| (key, algorithm)).map_err(|e| e.to_string()))
                };
                match usable {
                    Ok((key, algorithm)) => keys.push(Key { kid: jwk.common.key_id.clone(), key, algorithm }),
                    Err(why) => skipped.push(describe(why)),
                }
            }
            for why in &skipped {
                tracing::warn!(key = %why, "a key of the JSON Web Key Set is not used");
            }
            if keys.len() == before {
                return Err(format!("{}: no signing key this server takes (RSA, P-256, Ed25519){}", path.display(), skipped.first().map(|w| format!("; {w}")).unwrap_or_default()));
            }
        }
        for path in &options.public_key_files {
            let pem = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let (key, algorithm) = if let Ok(key) = DecodingKey::from_ed_pem(&pem) {
                (key, Algorithm::EdDSA)
            } else if let Ok(key) = DecodingKey::from_ec_pem(&pem) {
                (key, Algorithm::ES256)
            } else if let Ok(key) = DecodingKey::from_rsa_pem(&pem) {
                (key, Algorithm::RS256)
            } else {
                return Err(format!("{}: not a PEM public key of RSA, P-256 or Ed25519", path.display()));
            };
            let kid = path.file_stem().map(|stem| stem.to_string_lossy().into_owned());
            keys.push(Key { kid, key, algorithm });
        }
        if keys.is_empty() {
            return Ok(None);
        }
        let claim = options.player_claim.clone().unwrap_or_else(|| "sub".to_owned());
        Ok(Some(Self { keys, issuer: options.issuer.clone(), audience: options.audience.clone(), claim }))
    }

    /// The player a token names, once every check passed.
    ///
    /// # Errors
    /// 401 naming the check that failed.
    pub fn player(&self, token: &str) -> Result<String, ApiError> {
        let refuse = |why: &str| ApiError::unauthorized(format!("player token refused: {why}"));
        if token.len() > MAX_TOKEN_BYTES {
            return Err(refuse("longer than 8 KB"));
        }
        // The header as sent, read first: `alg: none` and unknown algorithms get a clear
        // answer (the library would call them malformed).
        let header_part = token.split('.').next().unwrap_or("");
        let header_json = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(header_part).map_err(|_| refuse("its header is not base64url"))?;
        let header: serde_json::Value = serde_json::from_slice(&header_json).map_err(|_| refuse("its header is not JSON"))?;
        let alg = header.get("alg").and_then(serde_json::Value::as_str).ok_or_else(|| refuse("its header has no alg"))?;
        if alg.eq_ignore_ascii_case("none") {
            return Err(refuse("alg none (an unsigned token) is never taken"));
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| refuse(&format!("algorithm {alg:?} is not one this server takes (HS256, RS256, ES256, EdDSA)")))?;
        let key = match &header.kid {
            Some(kid) => self.keys.iter().find(|k| k.kid.as_deref() == Some(kid.as_str())).ok_or_else(|| refuse(&format!("no key has kid {kid:?}")))?,
            None => match self.keys.iter().filter(|k| k.kid.is_none()).collect::<Vec<_>>().as_slice() {
                [only] => *only,
                [] if self.keys.len() == 1 => &self.keys[0],
                _ => return Err(refuse("it has no kid, and the server has several keys")),
            },
        };
        if header.alg != key.algorithm {
            return Err(refuse(&format!("algorithm {:?} is not the one its key allows ({:?})", header.alg, key.algorithm)));
        }
        let mut validation = Validation::new(key.algorithm);
        validation.leeway = LEEWAY_SECONDS;
        validation.validate_nbf = true;
        // (A claim the server checks must be there: the library skips one that is absent.)
        let mut required = vec!["exp"];
        required.extend(self.issuer.as_ref().map(|_| "iss"));
        required.extend(self.audience.as_ref().map(|_| "aud"));
        validation.set_required_spec_claims(&required);
        match &self.issuer {
            Some(issuer) => validation.set_issuer(&[issuer]),
            None => validation.iss = None,
        }
        match &self.audience {
            Some(audience) => validation.set_audience(&[audience]),
            None => validation.validate_aud = false,
        }
        let claims = jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(token, &key.key, &validation).map_err(|e| {
            refuse(match e.kind() {
                ErrorKind::InvalidSignature => "its signature does not verify",
                ErrorKind::ExpiredSignature => "it has expired",
                ErrorKind::ImmatureSignature => "it is not valid yet (nbf)",
                ErrorKind::InvalidIssuer => "its issuer (iss) is not this server's",
                ErrorKind::InvalidAudience => "its audience (aud) is not this server's",
                ErrorKind::MissingRequiredClaim(_) => "a claim it must carry is missing (exp, iss or aud)",
                _ => "it is malformed",
            })
        })?;
        // Claims the library reads leniently: a time that is not a number would skip its
        // check, and an issuer list would pass if any member matched.
        if claims.claims.get("nbf").is_some_and(|nbf| !nbf.as_f64().is_some_and(|t| t >= 0.0)) {
            return Err(refuse("its nbf is not a time (seconds)"));
        }
        if self.issuer.is_some() && !claims.claims.get("iss").is_some_and(serde_json::Value::is_string) {
            return Err(refuse("its issuer (iss) is not this server's"));
        }
        let player = claims.claims.get(&self.claim).and_then(serde_json::Value::as_str).ok_or_else(|| refuse(&format!("it has no {} claim naming the player", self.claim)))?;
        crate::model::check_name(player, "player").map_err(|e| refuse(&e.message))?;
        Ok(player.to_owned())
    }
}

#[derive(Serialize)]
struct MintedClaims<'a> {
    sub: &'a str,
    iat: u64,
    exp: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    iss: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    aud: Option<&'a str>,
}

/// An HS256 token for `player`, valid for `ttl` seconds from now (`elo-ladder tokens mint`,
/// for tests and tools; a studio's identity provider issues the real ones).
///
/// # Errors
/// Signing failed.
pub fn mint(secret: &[u8], player: &str, ttl: u64, issuer: Option<&str>, audience: Option<&str>) -> Result<String, String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    // (No kid: the server's secret has none.)
    let header = Header::new(Algorithm::HS256);
    let claims = MintedClaims { sub: player, iat: now, exp: now.saturating_add(ttl), iss: issuer, aud: audience };
    jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret)).map_err(|e| e.to_string())
}

/// The request budget of a token's player (`player/` and 32 hex digits of the name's
/// SHA-256): the same on every server, and no name kept in the limits' storage, which an
/// erasure does not reach.
#[must_use]
pub fn budget_key(player: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(player.as_bytes());
    format!("player/{}", crate::chain::hex(&digest[..16]))
}

/// Whether a bearer credential has a token's form (three base64url parts), not an API key's.
#[must_use]
pub fn looks_like_token(credential: &str) -> bool {
    credential.split('.').count() == 3 && credential.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}
