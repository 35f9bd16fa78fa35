//! Player tokens (JWT): a token from the studio's identity provider reads the public
//! resources and its own player's, and nothing else; every forgery and misuse is a clear
//! 401 or 403 that counts against the client's failed-authentication limit.

use std::path::{Path, PathBuf};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

use crate::helpers::{self, call, Backend, Server, TempDir, TestApp};
use crate::RULES;

on_both!(a_player_token_reads_as_its_player_and_nothing_more, forged_and_misused_tokens_are_refused_and_counted);

const ISSUER: &str = "https://id.example.com";
const AUDIENCE: &str = "elo-ladder";
const SECRET: &str = "a shared secret of more than 32 bytes for HS256\n";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jwt").join(name)
}

fn now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
}

/// A server taking HS256 tokens (a secret file) and EdDSA, ES256 and RS256 ones (PEM keys,
/// kids `ed1`, `ec1`, `rsa1`), for issuer [`ISSUER`] and audience [`AUDIENCE`], with a
/// ladder `l` where alice and bob played.
fn app(backend: Backend, extra: &[&str]) -> (TestApp, TempDir) {
    let dir = TempDir::new("tokens");
    let secret = dir.0.join("secret");
    std::fs::write(&secret, SECRET).unwrap();
    let (secret, ed, ec, rsa) = (secret.display().to_string(), fixture("ed1.pem"), fixture("ec1.pem"), fixture("rsa1.pem"));
    let mut args = vec![
        "--rate-limit",
        "0",
        "--jwt-secret-file",
        &secret,
        "--jwt-public-key",
        ed.to_str().unwrap(),
        "--jwt-public-key",
        ec.to_str().unwrap(),
        "--jwt-public-key",
        rsa.to_str().unwrap(),
        "--jwt-issuer",
        ISSUER,
        "--jwt-audience",
        AUDIENCE,
    ];
    args.extend_from_slice(extra);
    let app = TestApp::spawn_args(backend, &args);
    app.put_ladder("l", RULES);
    app.ok("POST", "/v1/ladders/l/matches", &app.report, Some(r#"{"id":"m1","a":"alice","b":"bob","score_a":1}"#));
    (app, dir)
}

/// Claims for `player`: issued now, valid an hour, for this server.
fn claims(player: &str) -> Value {
    json!({"sub": player, "iat": now(), "exp": now() + 3600, "iss": ISSUER, "aud": AUDIENCE})
}

fn hs256(claims: &Value) -> String {
    jsonwebtoken::encode(&Header::new(Algorithm::HS256), claims, &EncodingKey::from_secret(SECRET.trim_end().as_bytes())).unwrap()
}

fn signed(algorithm: Algorithm, kid: &str, private: &str, claims: &Value) -> String {
    let pem = std::fs::read(fixture(private)).unwrap();
    let key = match algorithm {
        Algorithm::EdDSA => EncodingKey::from_ed_pem(&pem),
        Algorithm::ES256 => EncodingKey::from_ec_pem(&pem),
        _ => EncodingKey::from_rsa_pem(&pem),
    }
    .unwrap();
    let mut header = Header::new(algorithm);
    header.kid = Some(kid.to_owned());
    jsonwebtoken::encode(&header, claims, &key).unwrap()
}

/// base64url without padding (to forge headers by hand).
fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn get(app: &TestApp, path: &str, token: &str) -> (u16, String) {
    call(&app.server.address, "GET", path, Some(token), None).unwrap()
}

fn a_player_token_reads_as_its_player_and_nothing_more(backend: Backend) {
    // (Every refusal below counts as a failed authentication: no limit here.)
    let (app, dir) = app(backend, &["--auth-failure-limit", "0"]);
    // `elo-ladder tokens mint` signs with the same secret file.
    let output = std::process::Command::new(helpers::binary())
        .args(["tokens", "mint", "--secret-file", dir.0.join("secret").to_str().unwrap(), "--player", "alice", "--ttl", "600", "--issuer", ISSUER, "--audience", AUDIENCE])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let minted = String::from_utf8(output.stdout).unwrap().trim().to_owned();
    let me: Value = serde_json::from_str(&get(&app, "/v1/keys/me", &minted).1).unwrap();
    assert_eq!(me, json!({"scope": "player", "player": "alice", "ladder": null}));
    // Every key type, chosen by kid.
    for token in [
        minted.clone(),
        hs256(&claims("alice")),
        signed(Algorithm::EdDSA, "ed1", "ed1-private.pem", &claims("alice")),
        signed(Algorithm::ES256, "ec1", "ec1-private.pem", &claims("alice")),
        signed(Algorithm::RS256, "rsa1", "rsa1-private.pem", &claims("alice")),
    ] {
        // The public reads.
        for path in ["/v1/ladders", "/v1/ladders/l", "/v1/ladders/l/leaderboard", "/v1/ladders/l/players/bob", "/v1/ladders/l/seasons"] {
            let (status, text) = get(&app, path, &token);
            assert_eq!(status, 200, "{path}: {text}");
        }
        // Its own history, not another player's.
        assert_eq!(get(&app, "/v1/ladders/l/players/alice/matches", &token).0, 200);
        let (status, text) = get(&app, "/v1/ladders/l/players/bob/matches", &token);
        assert!(status == 403 && text.contains("its own player's history"), "{status} {text}");
        // Never the journal, a report, an amendment or administration.
        for (method, path, body) in [
            ("GET", "/v1/ladders/l/matches", None),
            ("GET", "/v1/ladders/l/export", None),
            ("POST", "/v1/ladders/l/matches", Some(r#"{"id":"m2","a":"alice","b":"bob","score_a":1}"#)),
            ("POST", "/v1/ladders/l/matches/m1/annul", Some(r#"{"reason":"x"}"#)),
            ("PUT", "/v1/ladders/new", Some(RULES)),
            ("POST", "/v1/ladders/l/seasons/end", Some(r#"{"id":"s"}"#)),
            ("DELETE", "/v1/ladders/l/players/bob", None),
            ("GET", "/metrics", None),
        ] {
            let (status, text) = call(&app.server.address, method, path, Some(&token), body).unwrap();
            assert_eq!(status, 403, "{method} {path}: {text}");
            assert!(text.contains("player token"), "{text}");
        }
    }
    assert_eq!(helpers::journal(&app, "l").len(), 1, "nothing written");
    // Others' histories, once an admin makes them public on the ladder (this server sees the
    // option at once; others within the ladder cache's 5 s).
    let token = hs256(&claims("alice"));
    for (body, status, says) in [(r#"{"public_history":true}"#, 400, "public_history"), (r#"{"public_histories":"yes"}"#, 400, "public_histories"), ("[]", 400, "options")] {
        let (got, text) = app.call("PUT", "/v1/ladders/l/options", &app.admin, Some(body));
        assert!(got == status && text.contains(says), "{body}: {got} {text}");
    }
    assert_eq!(app.call("PUT", "/v1/ladders/l/options", &app.read, Some(r#"{"public_histories":true}"#)).0, 403);
    assert_eq!(call(&app.server.address, "PUT", "/v1/ladders/l/options", Some(&token), Some(r#"{"public_histories":true}"#)).unwrap().0, 403);
    assert_eq!(app.ok("GET", "/v1/ladders/l", &app.read, None)["options"], json!({"public_histories": false, "matched_only": false}));
    app.ok("PUT", "/v1/ladders/l/options", &app.admin, Some(r#"{"public_histories":true}"#));
    assert_eq!(app.ok("GET", "/v1/ladders/l", &app.read, None)["options"], json!({"public_histories": true, "matched_only": false}));
    let (status, text) = get(&app, "/v1/ladders/l/players/bob/matches", &token);
    assert_eq!(status, 200, "{text}");
}

fn forged_and_misused_tokens_are_refused_and_counted(backend: Backend) {
    let (app, _dir) = app(backend, &["--auth-failure-limit", "0"]);
    let path = "/v1/ladders/l/players/alice";
    let good = hs256(&claims("alice"));
    let (header, rest) = good.split_once('.').unwrap();
    let (payload, _signature) = rest.split_once('.').unwrap();
    let rsa_public = std::fs::read(fixture("rsa1.pem")).unwrap();
    let mut expired = claims("alice");
    expired["exp"] = json!(now() - 120);
    let mut within_leeway = claims("alice");
    within_leeway["exp"] = json!(now() - 5);
    let mut early = claims("alice");
    early["nbf"] = json!(now() + 600);
    let mut other_issuer = claims("alice");
    other_issuer["iss"] = json!("https://evil.example.com");
    let mut other_audience = claims("alice");
    other_audience["aud"] = json!("another-game");
    let mut no_audience = claims("alice");
    no_audience.as_object_mut().unwrap().remove("aud");
    let mut no_exp = claims("alice");
    no_exp.as_object_mut().unwrap().remove("exp");
    let mut bad_name = claims("alice");
    bad_name["sub"] = json!("has space\u{202e}");
    let mut nbf_text = claims("alice");
    nbf_text["nbf"] = json!(format!("{}", now() + 600));
    let mut issuers = claims("alice");
    issuers["iss"] = json!([ISSUER, "https://evil.example.com"]);
    let mut other_player = claims("alice");
    other_player["sub"] = json!("bob");
    let with_kid = |kid: &str, claims: &Value| {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(SECRET.trim_end().as_bytes())).unwrap()
    };
    let cases: Vec<(&str, String, &str)> = vec![
        ("alg none", format!("{}.{payload}.", b64(br#"{"alg":"none","typ":"JWT"}"#)), "alg none"),
        ("alg None", format!("{}.{payload}.", b64(br#"{"alg":"None"}"#)), "alg none"),
        ("an unknown algorithm", format!("{}.{payload}.c2ln", b64(br#"{"alg":"HS1024"}"#)), "not one this server takes"),
        // The RSA public key used as an HMAC secret: the classic confusion.
        (
            "HS256 signed with the RSA public key, kid rsa1",
            {
                let mut header = Header::new(Algorithm::HS256);
                header.kid = Some("rsa1".to_owned());
                jsonwebtoken::encode(&header, &claims("alice"), &EncodingKey::from_secret(&rsa_public)).unwrap()
            },
            "not the one its key allows",
        ),
        ("an unknown kid", with_kid("kid-9", &claims("alice")), "no key has kid"),
        ("a changed payload", format!("{header}.{}.{}", b64(serde_json::to_string(&other_player).unwrap().as_bytes()), good.rsplit('.').next().unwrap()), "signature"),
        (
            "another secret",
            jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims("alice"), &EncodingKey::from_secret(b"another secret of more than 32 bytes!!")).unwrap(),
            "signature",
        ),
        ("expired", hs256(&expired), "expired"),
        ("not yet valid", hs256(&early), "not valid yet"),
        ("an nbf that is text", hs256(&nbf_text), "nbf"),
        ("a list of issuers", hs256(&issuers), "issuer"),
        ("another issuer", hs256(&other_issuer), "issuer"),
        ("another audience", hs256(&other_audience), "audience"),
        ("no audience", hs256(&no_audience), "aud"),
        ("no exp", hs256(&no_exp), "exp"),
        ("a player name the ladder refuses", hs256(&bad_name), "player"),
        ("not base64", "eyJ!!!.e30.sig".to_owned(), "malformed"),
    ];
    for (what, token, says) in &cases {
        let (status, text) = get(&app, path, token);
        assert_eq!(status, 401, "{what}: {text}");
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{what}: not JSON: {text}"));
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{what}: {message}");
        assert!(!message.contains(token.as_str()), "{what}: the token is not echoed");
    }
    // Within the clock leeway: taken.
    assert_eq!(get(&app, path, &hs256(&within_leeway)).0, 200);
    // A token of player alice cannot act for bob.
    let (status, _) = get(&app, "/v1/ladders/l/players/bob/matches", &good);
    assert_eq!(status, 403);
    // A server started without token keys refuses every token, saying why.
    let (plain, _plain_dir) = {
        let dir = TempDir::new("no-tokens");
        (TestApp::spawn(backend), dir)
    };
    let (status, text) = get(&plain, "/v1/ladders", &good);
    assert!(status == 401 && text.contains("takes no player tokens"), "{text}");
    // Refusals count against the address: with a limit of 3 failures a minute, the fourth
    // bad token (and then even a good one) gets 429.
    let limited = TestApp::spawn_args(backend, &["--rate-limit", "0", "--auth-failure-limit", "3", "--jwt-secret-file", _dir.0.join("secret").to_str().unwrap()]);
    limited.put_ladder("l", RULES);
    let bad = hs256(&expired);
    let statuses: Vec<u16> = (0..4).map(|_| get(&limited, "/v1/ladders/l", &bad).0).collect();
    assert_eq!(statuses, [401, 401, 401, 429]);
    assert_eq!(get(&limited, "/v1/ladders/l", &hs256(&json!({"sub": "alice", "exp": now() + 60}))).0, 429);
}

/// Keys from a JSON Web Key Set, chosen by kid; keys the server does not take (encryption
/// keys, symmetric keys, an alg that does not fit its key) are skipped, and a set left with
/// none stops the server at start with the reason.
#[test]
fn keys_come_from_a_key_set_and_bad_sets_stop_the_server() {
    let dir = TempDir::new("jwks");
    let database = format!("sqlite://{}", dir.0.join("ladder.db").display());
    let jwks = fixture("ed1.jwks.json");
    let server = Server::start_with(&database, 0, &["--jwt-jwks", jwks.to_str().unwrap()]);
    let token = signed(Algorithm::EdDSA, "ed-jwks", "ed1-private.pem", &json!({"sub": "carol", "exp": now() + 60}));
    let (status, text) = call(&server.address, "GET", "/v1/keys/me", Some(&token), None).unwrap();
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("carol"), "{text}");
    // The same key under another kid is unknown.
    let token = signed(Algorithm::EdDSA, "ed1", "ed1-private.pem", &json!({"sub": "carol", "exp": now() + 60}));
    assert_eq!(call(&server.address, "GET", "/v1/keys/me", Some(&token), None).unwrap().0, 401);
    drop(server);
    // A provider's set with an encryption key beside the signing key: the server starts,
    // skipping it, and takes tokens of the signing key.
    let with_enc = dir.0.join("with-enc.json");
    let ed = std::fs::read_to_string(&jwks).unwrap();
    let enc = r#"{"kty":"RSA","use":"enc","alg":"RSA-OAEP","kid":"enc-1","n":"sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw","e":"AQAB"}"#;
    std::fs::write(&with_enc, ed.replacen("[", &format!("[{enc},"), 1)).unwrap();
    let server = Server::start_with(&database, 0, &["--jwt-jwks", with_enc.to_str().unwrap()]);
    let token = signed(Algorithm::EdDSA, "ed-jwks", "ed1-private.pem", &json!({"sub": "carol", "exp": now() + 60}));
    assert_eq!(call(&server.address, "GET", "/v1/keys/me", Some(&token), None).unwrap().0, 200);
    drop(server);
    for (name, set, says) in [
        ("only-enc.json", format!(r#"{{"keys":[{enc}]}}"#), "encryption key"),
        ("symmetric.json", r#"{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"s"}]}"#.to_owned(), "symmetric"),
        ("mismatch.json", std::fs::read_to_string(&jwks).unwrap().replace("\"EdDSA\"", "\"RS256\""), "does not fit"),
        ("broken.json", "{\"keys\": 3}".to_owned(), "not a JSON Web Key Set"),
    ] {
        let path = dir.0.join(name);
        std::fs::write(&path, set).unwrap();
        let failed = Server::try_start(&database, &["--jwt-jwks", path.to_str().unwrap()], &[]).map(|_| ()).expect_err("a bad key set stops the server");
        assert!(failed.contains(says), "{name}: {failed}");
    }
}
