//! PostgreSQL connections: TLS as libpq's `sslmode` says (against the private cluster's
//! own CA), passwords from the environment or a file and never printed, and a clear
//! message when the database cannot be reached.

use std::process::{Command, Stdio};

use crate::helpers::{self, binary, call, cluster_port, cluster_tls, database, Backend, Server, TempDir};

/// Starts `elo-ladder serve` on `url`; `Err(what it printed)` when it exits instead.
fn try_serve(url: &str, envs: &[(&str, &str)], args: &[&str]) -> Result<Server, String> {
    let mut all = vec!["--rate-limit", "0"];
    all.extend_from_slice(args);
    Server::try_start(url, &all, envs)
}

/// Whether every connection the server keeps is encrypted (`pg_stat_ssl`), and how many.
fn server_connections(url_without_tls: &str) -> Vec<bool> {
    let text = helpers::psql_query(
        url_without_tls,
        "SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid WHERE a.application_name = 'elo-ladder' AND a.datname = current_database()",
    );
    text.lines().map(|l| l.trim() == "t").collect()
}

#[test]
fn postgres_tls_follows_sslmode() {
    let dir = TempDir::new("tls");
    let plain = database(Backend::Postgres, &dir);
    let name = plain.rsplit('/').next().unwrap().to_owned();
    let port = cluster_port();
    let tls = cluster_tls();
    let (ca, other) = (tls.ca.display().to_string(), tls.other_ca.display().to_string());
    let url = |host: &str, query: &str| format!("postgres://postgres@{host}:{port}/{name}?{query}");

    // verify-full against the cluster's CA, by the name on its certificate: encrypted.
    let server = try_serve(&url("localhost", &format!("sslmode=verify-full&sslrootcert={ca}")), &[], &[]).expect("verify-full with the right CA");
    let key = helpers::key(&plain, "read", None);
    assert_eq!(call(&server.address, "GET", "/healthz", Some(&key), None).unwrap().0, 200);
    let connections = server_connections(&plain);
    assert!(!connections.is_empty() && connections.iter().all(|&ssl| ssl), "{connections:?}");
    drop(server);

    // The wrong CA, or a name the certificate does not carry: refused, saying why.
    let error = try_serve(&url("localhost", &format!("sslmode=verify-full&sslrootcert={other}")), &[], &[]).map(|_| ()).expect_err("another CA");
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    let error = try_serve(&url("127.0.0.1", &format!("sslmode=verify-full&sslrootcert={ca}")), &[], &[]).map(|_| ()).expect_err("the certificate names localhost only");
    assert!(error.to_lowercase().contains("certificate") || error.contains("name"), "{error}");
    // verify-ca checks the chain, not the name; require encrypts without checking.
    for query in [format!("sslmode=verify-ca&sslrootcert={ca}"), "sslmode=require".to_owned()] {
        let server = try_serve(&url("127.0.0.1", &query), &[], &[]).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(call(&server.address, "GET", "/healthz", None, None).unwrap().0, 200);
        assert!(server_connections(&plain).iter().all(|&ssl| ssl), "{query}");
        drop(server);
    }
    let error = try_serve(&url("127.0.0.1", &format!("sslmode=verify-ca&sslrootcert={other}")), &[], &[]).map(|_| ()).expect_err("verify-ca with another CA");
    assert!(error.to_lowercase().contains("certificate"), "{error}");
    // disable: plain text.
    let server = try_serve(&url("127.0.0.1", "sslmode=disable"), &[], &[]).expect("disable");
    assert_eq!(call(&server.address, "GET", "/healthz", None, None).unwrap().0, 200);
    assert!(server_connections(&plain).iter().all(|&ssl| !ssl));
    drop(server);
}

#[test]
fn postgres_passwords_come_from_the_environment_or_a_file_and_are_never_printed() {
    let secret = "pw-Correct-Horse-7";
    let setup = helpers::database(Backend::Postgres, &TempDir::new("pwsetup"));
    let _ = helpers::psql_background(&setup, &format!("DO $$ BEGIN CREATE ROLE ladder_pw LOGIN PASSWORD '{secret}'; EXCEPTION WHEN duplicate_object THEN NULL; END $$")).wait();
    let (owned, name) = helpers::database_owned_by("ladder_pw");
    let port = cluster_port();
    let url = format!("postgres://ladder_pw@127.0.0.1:{port}/{name}");
    // No password: refused by the server, and the message says so.
    let error = try_serve(&url, &[], &[]).map(|_| ()).expect_err("no password");
    assert!(error.contains("password"), "{error}");
    let error = try_serve(&url, &[("PGPASSWORD", "wrong")], &[]).map(|_| ()).expect_err("a wrong password");
    assert!(error.contains("password authentication failed"), "{error}");
    // From PGPASSWORD.
    let server = try_serve(&url, &[("PGPASSWORD", secret)], &[]).expect("PGPASSWORD");
    assert_eq!(call(&server.address, "GET", "/healthz", None, None).unwrap().0, 200);
    drop(server);
    // From a file.
    let dir = TempDir::new("pw");
    let file = dir.0.join("password");
    std::fs::write(&file, format!("{secret}\n")).unwrap();
    let server = try_serve(&url, &[], &["--database-password-file", file.to_str().unwrap()]).expect("a password file");
    assert_eq!(call(&server.address, "GET", "/healthz", None, None).unwrap().0, 200);
    // In the URL (or DATABASE_URL): used, and shown as ***.
    let with_password = format!("postgres://ladder_pw:{secret}@127.0.0.1:{port}/{name}");
    let mut child =
        Command::new(binary()).args(["serve", "--listen", "127.0.0.1:0"]).env("DATABASE_URL", &with_password).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
    let _ = child.kill();
    let output = child.wait_with_output().unwrap();
    let everything = format!("{line}{}{}", String::from_utf8_lossy(&output.stderr), server.log());
    assert!(line.contains("postgres://ladder_pw:***@127.0.0.1"), "{line}");
    assert!(!everything.contains(secret), "the password was printed: {everything}");
    // keys create through the same sources.
    let created = Command::new(binary()).args(["keys", "create", "--scope", "read", "--database", &url, "--database-password-file", file.to_str().unwrap()]).output().unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    let _ = owned;
}

#[test]
fn postgres_an_unreachable_database_is_named_with_the_reason() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let output = Command::new(binary())
        .args(["serve", "--listen", "127.0.0.1:0", "--database", &format!("postgres://someone:hunter2@127.0.0.1:{port}/nowhere?connect_timeout=5")])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
    assert!(error.to_lowercase().contains("refused"), "{error}");
    assert!(!error.contains("hunter2"), "{error}");
}
