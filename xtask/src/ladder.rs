//! The ladder server (`ladder-server/`, `elo-ladder`) in the test command: PostgreSQL for
//! its suite, a real server for the C# client's tests, and the load benchmark.
//!
//! The suite itself (`ladder-server/tests/api`) runs inside `cargo test --workspace
//! --release`, on SQLite and on a private PostgreSQL cluster that its helpers start in a
//! temporary folder (as the `postgres` user when this runs as root: `initdb` refuses root)
//! and stop when the test process ends, whatever the outcome. This module makes sure
//! Debian's `postgresql` is installed before that step, so the suite never lacks it (and it
//! fails loudly, never skips, when it cannot get one).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use crate::tools::root;
use crate::tools::{ensure, Step};

/// Debian's PostgreSQL programs folder (the newest `/usr/lib/postgresql/*/bin`), if any.
fn postgres_bin() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").is_file())
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

/// Installs Debian's `postgresql` when its server programs are missing (the ladder suite
/// starts a private cluster with them).
pub fn ensure_postgres() -> Result<(), String> {
    // The suite's private cluster speaks TLS with certificates made by openssl; its browser
    // tests (CORS) run Debian's Chromium.
    ensure("openssl", &["openssl"], "install openssl (the ladder suite makes its test CA with it)")?;
    ensure("chromium", &["chromium"], "install Debian's chromium (the ladder suite's browser tests)")?;
    if std::env::var_os("ELO_LADDER_PG_BIN").is_some() || postgres_bin().is_some() {
        return Ok(());
    }
    let hint = "install PostgreSQL's server programs (Debian: apt-get install postgresql) or set ELO_LADDER_PG_BIN to their folder";
    // `pg_ctlcluster` comes with the server package (postgresql-common).
    ensure("pg_ctlcluster", &["postgresql"], hint)?;
    postgres_bin().map(|_| ()).ok_or_else(|| format!("no /usr/lib/postgresql/*/bin/initdb after installing postgresql: {hint}"))
}

/// A private PostgreSQL cluster in a temporary folder (trust authentication, loopback only,
/// run as `postgres` when this is root: `initdb` refuses root); stopped and removed when
/// dropped. For the container image's check (`image.rs`).
pub struct PrivateCluster {
    /// Its TCP port on 127.0.0.1.
    pub port: u16,
    dir: PathBuf,
    bin: PathBuf,
}

impl PrivateCluster {
    /// Starts one.
    pub fn start() -> Result<Self, String> {
        let bin = postgres_bin().ok_or("no PostgreSQL server programs (apt-get install postgresql)")?;
        let dir = std::env::temp_dir().join(format!("elo-ladder-image-pg-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let root = Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false);
        let as_postgres = |program: &str| -> Command {
            if root {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--"]).arg(bin.join(program));
                c
            } else {
                Command::new(bin.join(program))
            }
        };
        if root {
            Step::new("chown the cluster's folder", "chown").arg("postgres:postgres").arg(&dir).run()?;
        }
        let data = dir.join("data");
        let out = as_postgres("initdb").arg("-D").arg(&data).args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]).output().map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!("initdb: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).map_err(|e| e.to_string())?;
        let options = format!("-p {port} -k {} -c listen_addresses=127.0.0.1", dir.display());
        let out = as_postgres("pg_ctl").arg("-D").arg(&data).arg("-l").arg(dir.join("log")).args(["-w", "-o", &options, "start"]).output().map_err(|e| format!("pg_ctl: {e}"))?;
        if !out.status.success() {
            return Err(format!("pg_ctl start: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(Self { port, dir, bin })
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let pg_ctl = self.bin.join("pg_ctl");
        let data = self.dir.join("data");
        let _ = Command::new("runuser").args(["-u", "postgres", "--"]).arg(&pg_ctl).arg("-D").arg(&data).args(["-m", "immediate", "stop"]).output();
        let _ = Command::new(&pg_ctl).arg("-D").arg(&data).args(["-m", "immediate", "stop"]).output();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A running `elo-ladder serve` on a fresh SQLite database for the C# client's tests;
/// stopped and removed when dropped.
pub struct ClientTestServer {
    child: Child,
    dir: PathBuf,
}

impl Drop for ClientTestServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn elo_ladder() -> PathBuf {
    root().join("target/release-tests").join(format!("elo-ladder{}", std::env::consts::EXE_SUFFIX))
}

fn create_key(database: &str, scope: &str) -> Result<String, String> {
    let output = Command::new(elo_ladder()).args(["keys", "create", "--database", database, "--scope", scope]).output().map_err(|e| format!("elo-ladder keys create: {e}"))?;
    if !output.status.success() {
        return Err(format!("elo-ladder keys create: {}", String::from_utf8_lossy(&output.stderr)));
    }
    String::from_utf8_lossy(&output.stdout).lines().last().map(str::to_owned).ok_or_else(|| "elo-ladder printed no key".to_owned())
}

/// Builds `elo-ladder`, starts it on a fresh SQLite database with an admin, a report and a
/// read key and a player token, and names them to the C# tests (`ELO_LADDER_URL`,
/// `ELO_LADDER_*_KEY`, `ELO_LADDER_PLAYER_TOKEN`, inherited by the NUnit run).
/// `ELO_LADDER_BIN` names the binary itself: the timeout and retry tests start servers of
/// their own with it, which they stop (`SIGSTOP`), kill and restart.
/// `ELO_LADDER_JWT_SECRET_FILE` names the tokens' secret: the Ranked Play sample's tests mint
/// their players' tokens with it, as the sample's readers do.
pub fn start_for_client_tests() -> Result<ClientTestServer, String> {
    // The suite's own profile (release without LTO): the Rust tests have built it already.
    Step::new("elo-ladder (release-tests build)", "cargo").args(["build", "--package", "ranking-elo-ladder"]).args(crate::TEST_PROFILE).run()?;
    let dir = std::env::temp_dir().join(format!("elo-ladder-csharp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let database = format!("sqlite://{}", dir.join("ladder.db").display());
    let keys = [("ELO_LADDER_ADMIN_KEY", "admin"), ("ELO_LADDER_REPORT_KEY", "report"), ("ELO_LADDER_READ_KEY", "read")];
    let mut created = Vec::new();
    for (variable, scope) in keys {
        created.push((variable, create_key(&database, scope)?));
    }
    // Player tokens signed with a secret of this run: the C# tests act as player
    // `cs-token-player` with one (ELO_LADDER_PLAYER_TOKEN), as a game client would.
    let secret = dir.join("jwt-secret");
    // (A secret of this run only, from the standard library's randomly seeded hasher.)
    let random = std::collections::hash_map::RandomState::new();
    let words: String = (0..4u8).map(|i| format!("{:016x}", std::hash::BuildHasher::hash_one(&random, i))).collect();
    std::fs::write(&secret, words).map_err(|e| e.to_string())?;
    let secret = secret.display().to_string();
    let minted = Command::new(elo_ladder())
        .args(["tokens", "mint", "--secret-file", &secret, "--player", "cs-token-player", "--ttl", "86400"])
        .output()
        .map_err(|e| format!("elo-ladder tokens mint: {e}"))?;
    if !minted.status.success() {
        return Err(format!("elo-ladder tokens mint: {}", String::from_utf8_lossy(&minted.stderr)));
    }
    created.push(("ELO_LADDER_PLAYER_TOKEN", String::from_utf8_lossy(&minted.stdout).trim().to_owned()));
    println!("==> elo-ladder serve for the C# client tests ({database})");
    let mut child = Command::new(elo_ladder())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--database",
            &database,
            "--rate-limit",
            "0",
            "--auth-failure-limit",
            "0",
            "--jwt-secret-file",
            &secret,
            "--matchmaking-interval-ms",
            "100",
        ])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("elo-ladder serve: {e}"))?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().ok_or("no stdout")?).read_line(&mut line).map_err(|e| e.to_string())?;
    let server = ClientTestServer { child, dir };
    let url = line.split_whitespace().find(|w| w.starts_with("http://")).ok_or_else(|| format!("elo-ladder said {line:?}"))?;
    std::env::set_var("ELO_LADDER_URL", url);
    std::env::set_var("ELO_LADDER_BIN", elo_ladder());
    std::env::set_var("ELO_LADDER_JWT_SECRET_FILE", &secret);
    for (variable, key) in created {
        std::env::set_var(variable, key);
    }
    Ok(server)
}

/// The load benchmark of BENCHMARKS.md (not part of `test`): `cargo bench -p
/// ranking-elo-ladder --bench load`, on SQLite and on a private PostgreSQL cluster.
pub fn bench(args: &[String]) -> Result<(), String> {
    ensure_postgres()?;
    Step::new("ladder load benchmark", "cargo").args(["bench", "--package", "ranking-elo-ladder", "--bench", "load", "--"]).args(args).run()
}

#[cfg(test)]
mod tests {
    /// `elo-ladder serve` without `--database` writes `ladder.db` (and SQLite's `-wal` and
    /// `-shm` files) into the folder it runs in, the checkout under `cargo run`: git must
    /// ignore them, wherever in the tree they land.
    #[test]
    fn the_default_ladder_database_is_ignored_by_git() {
        let main = std::fs::read_to_string(crate::tools::root().join("ladder-server/src/main.rs")).unwrap();
        let default = main.lines().find_map(|l| l.trim().strip_prefix("const DEFAULT_DATABASE: &str = \"")).expect("ladder-server's DEFAULT_DATABASE");
        let file = default.trim_end_matches("\";").strip_prefix("sqlite://").expect("the default database is a SQLite file");
        assert!(!file.contains('/'), "{file}: the default database is a file of the current folder");
        let ignore = std::fs::read_to_string(crate::tools::root().join(".gitignore")).unwrap();
        let patterns: Vec<&str> = ignore.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).collect();
        for pattern in [file.to_owned(), format!("{file}-*")] {
            assert!(patterns.contains(&pattern.as_str()), ".gitignore must list {pattern:?} (anywhere in the tree)");
        }
    }
}
