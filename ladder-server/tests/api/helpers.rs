//! Test helpers: the real `elo-ladder` binary on a fresh database per test (a SQLite file
//! in a temporary folder, or a new database in a private PostgreSQL cluster that the first
//! PostgreSQL test starts), a small HTTP client, and the engine replay that checks a
//! ladder bit for bit.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use ranking_elo::ladder::group_matches::{PlacementMatch, TeamMatch};
use ranking_elo::pool::{Match, Pool};
use ranking_elo::team::Team;
use ranking_elo::{Config, Outcome, PlayerState, Rules};
use serde_json::Value;

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A folder removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let path = std::env::temp_dir().join(format!("elo-ladder-{tag}-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("temporary folder");
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The `elo-ladder` under test (the benchmark may name another build in `ELO_LADDER_BIN`).
pub fn binary() -> String {
    std::env::var("ELO_LADDER_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_elo-ladder").to_owned())
}

/// The folder of PostgreSQL's programs (the benchmark's pgbench).
#[allow(dead_code)]
pub fn postgres_bin_dir() -> PathBuf {
    cluster().bin.clone()
}

// ---------------------------------------------------------------------------------------
// PostgreSQL: a private cluster for this test process.

struct Cluster {
    /// `postgres://postgres@127.0.0.1:PORT` (no database).
    base: String,
    bin: PathBuf,
    /// The CA that signed the cluster's certificate (for `localhost` only) and another CA.
    tls: Option<TlsFiles>,
}

/// The private cluster's TLS material.
#[derive(Clone)]
pub struct TlsFiles {
    /// The CA that signed the server's certificate.
    pub ca: PathBuf,
    /// A CA that signed nothing of the cluster's.
    pub other_ca: PathBuf,
    /// The certificate for `localhost` that `ca` signed, and its key (also a webhook
    /// receiver's, over TLS).
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
}

/// A CA and a server certificate for `localhost` (not 127.0.0.1), made with openssl.
fn make_certificates(dir: &Path) -> Result<TlsFiles, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let openssl = |args: &[&str]| run(Command::new("openssl").current_dir(dir).args(args), "openssl");
    let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    for (name, subject) in [("ca", "/CN=elo-ladder test CA"), ("other-ca", "/CN=elo-ladder other CA")] {
        let (key, pem) = (format!("{name}.key"), format!("{name}.pem"));
        let mut args = vec!["req", "-x509"];
        args.extend(ec);
        args.extend(["-keyout", &key, "-out", &pem, "-days", "3650", "-subj", subject]);
        openssl(&args)?;
    }
    let mut args = vec!["req"];
    args.extend(ec);
    args.extend(["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"]);
    openssl(&args)?;
    std::fs::write(dir.join("san.ext"), "subjectAltName=DNS:localhost\n").map_err(|e| e.to_string())?;
    openssl(&["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem", "-days", "3650", "-extfile", "san.ext"])?;
    if is_root() {
        run(Command::new("chown").args(["-R", "postgres:postgres"]).arg(dir), "chown")?;
    }
    run(Command::new("chmod").arg("600").arg(dir.join("server.key")), "chmod")?;
    Ok(TlsFiles { ca: dir.join("ca.pem"), other_ca: dir.join("other-ca.pem"), server_cert: dir.join("server.pem"), server_key: dir.join("server.key") })
}

static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

/// The folder of Debian's PostgreSQL programs (`ELO_LADDER_PG_BIN`, else the newest
/// `/usr/lib/postgresql/*/bin`).
fn postgres_bin() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("ELO_LADDER_PG_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|_| "PostgreSQL is not installed: apt-get install postgresql (or set ELO_LADDER_PG_BIN)".to_owned())?
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").is_file())
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin).ok_or_else(|| "no /usr/lib/postgresql/*/bin/initdb: apt-get install postgresql".to_owned())
}

/// Runs a PostgreSQL program as the `postgres` user when this is root (initdb refuses root).
fn as_postgres(bin: &Path, program: &str) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(bin.join(program));
        command
    } else {
        Command::new(bin.join(program))
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free port")
}

fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("{what}: cannot start: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed: {}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
    }
}

fn start_cluster() -> Result<Cluster, String> {
    let bin = postgres_bin()?;
    if let Ok(base) = std::env::var("ELO_LADDER_TEST_POSTGRES") {
        return Ok(Cluster { base, bin, tls: None });
    }
    // Not a TempDir: the guardian below removes it after this process has exited.
    let dir = std::env::temp_dir().join(format!("elo-ladder-pg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    if is_root() {
        run(Command::new("chown").args(["postgres:postgres"]).arg(&dir), "chown")?;
    }
    let data = dir.join("data");
    run(as_postgres(&bin, "initdb").arg("-D").arg(&data).args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]), "initdb")?;
    // The role `ladder_pw` must give its password (the tests of passwords); everyone else is
    // trusted.
    let hba = data.join("pg_hba.conf");
    let trusted = std::fs::read_to_string(&hba).map_err(|e| e.to_string())?;
    let password_lines = "host all ladder_pw 127.0.0.1/32 scram-sha-256\nhost all ladder_pw ::1/128 scram-sha-256\n";
    std::fs::write(&hba, format!("{password_lines}{trusted}")).map_err(|e| e.to_string())?;
    let tls = make_certificates(&dir.join("tls"))?;
    let port = free_port();
    let options = format!(
        "-p {port} -k {dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c ssl=on -c ssl_cert_file={dir}/tls/server.pem -c ssl_key_file={dir}/tls/server.key",
        dir = dir.display()
    );
    run(as_postgres(&bin, "pg_ctl").arg("-D").arg(&data).arg("-l").arg(dir.join("log")).args(["-w", "-o", &options, "start"]), "pg_ctl start")?;
    // Stops the cluster and removes its folder once this test process has ended, however
    // it ends (a failed test, a panic, a kill).
    let stop = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.2; done; {runuser}{pg_ctl} -D {data} -m immediate stop >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        runuser = if is_root() { "runuser -u postgres -- " } else { "" },
        pg_ctl = bin.join("pg_ctl").display(),
        data = data.display(),
        dir = dir.display(),
    );
    Command::new("sh").args(["-c", &stop]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).spawn().map_err(|e| e.to_string())?;
    eprintln!("private PostgreSQL cluster on 127.0.0.1:{port} in {}", dir.display());
    Ok(Cluster { base: format!("postgres://postgres@127.0.0.1:{port}"), bin, tls: Some(tls) })
}

/// The private cluster's TLS files (the suite's own cluster always has them).
pub fn cluster_tls() -> TlsFiles {
    cluster().tls.clone().expect("the suite's private cluster has TLS")
}

/// The private cluster's port.
pub fn cluster_port() -> u16 {
    cluster().base.rsplit(':').next().and_then(|p| p.parse().ok()).expect("port")
}

fn cluster() -> &'static Cluster {
    match CLUSTER.get_or_init(start_cluster) {
        Ok(cluster) => cluster,
        Err(error) => panic!("the ladder suite needs PostgreSQL and could not start one: {error}"),
    }
}

/// A fresh database: a SQLite file in `dir`, or a new PostgreSQL database.
pub fn database(backend: Backend, dir: &TempDir) -> String {
    match backend {
        Backend::Sqlite => format!("sqlite://{}", dir.0.join("ladder.db").display()),
        Backend::Postgres => {
            let cluster = cluster();
            let name = format!("t{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
            let maintenance = format!("{}/postgres", cluster.base);
            run(Command::new(cluster.bin.join("createdb")).arg(format!("--maintenance-db={maintenance}")).arg(&name), "createdb").unwrap_or_else(|e| panic!("{e}"));
            format!("{}/{name}", cluster.base)
        }
    }
}

/// The file of a `sqlite://` URL (without its options).
pub fn sqlite_file(url: &str) -> &str {
    let path = url.strip_prefix("sqlite://").expect("a sqlite:// URL");
    path.split('?').next().unwrap_or(path)
}

/// A new database of the private cluster owned by `owner` (its URL has no user).
pub fn database_owned_by(owner: &str) -> (String, String) {
    let cluster = cluster();
    let name = format!("t{}_{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    let maintenance = format!("{}/postgres", cluster.base);
    run(Command::new(cluster.bin.join("createdb")).arg(format!("--maintenance-db={maintenance}")).args(["--owner", owner]).arg(&name), "createdb")
        .unwrap_or_else(|e| panic!("{e}"));
    (format!("{}/{name}", cluster.base), name)
}

/// Runs one query on a PostgreSQL database with psql and returns its unaligned output.
pub fn psql_query(url: &str, sql: &str) -> String {
    let output = Command::new(cluster().bin.join("psql")).args(["-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", url, "-c", sql]).output().expect("psql");
    assert!(output.status.success(), "psql {sql}: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// Runs SQL on a PostgreSQL database with psql (the test's own session), in the background.
pub fn psql_background(url: &str, sql: &str) -> Child {
    Command::new(cluster().bin.join("psql")).args(["-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql]).stdout(Stdio::null()).spawn().expect("psql")
}

// ---------------------------------------------------------------------------------------
// The server.

/// A running `elo-ladder serve`; its log (stderr) goes to a file read by [`Server::log`].
pub struct Server {
    child: Child,
    pub address: String,
    pub database: String,
    pub log: PathBuf,
    args: Vec<String>,
}

/// Where servers' logs are written (kept after a failing test for reading).
fn log_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("elo-ladder-logs-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

impl Server {
    /// `elo-ladder serve` on `port` (0: any) with `--rate-limit` and no failed-authentication
    /// limit.
    pub fn start(database: &str, port: u16, rate_limit: u32) -> Self {
        Self::start_with(database, port, &["--rate-limit", &rate_limit.to_string(), "--auth-failure-limit", "0"])
    }

    /// `elo-ladder serve` on `port` with `args` (after `--listen` and `--database`).
    pub fn start_with(database: &str, port: u16, args: &[&str]) -> Self {
        let log = log_dir().join(format!("server-{}.log", NEXT.fetch_add(1, Ordering::Relaxed)));
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let (child, address) = Self::spawn(database, port, &args, &log, &[]);
        Self { child, address, database: database.to_owned(), log, args }
    }

    /// Starts a server with `envs` added to its environment (and `PGPASSWORD` removed
    /// unless given); `Err` with what it printed when it exits instead of listening.
    pub fn try_start(database: &str, args: &[&str], envs: &[(&str, &str)]) -> Result<Self, String> {
        let log = log_dir().join(format!("server-{}.log", NEXT.fetch_add(1, Ordering::Relaxed)));
        let stderr = std::fs::OpenOptions::new().create(true).append(true).open(&log).expect("log file");
        let mut command = Command::new(binary());
        command.args(["serve", "--listen", "127.0.0.1:0", "--database", database]).args(args).stdout(Stdio::piped()).stderr(stderr).env_remove("PGPASSWORD");
        // Rebuild checkpoints every few entries, so that every scenario's amendments replay
        // from them (a test may pass --checkpoint-every itself).
        command.env("ELO_LADDER_CHECKPOINT_EVERY", "7");
        for (name, value) in envs {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("elo-ladder starts");
        let mut line = String::new();
        let _ = BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line);
        match line.split("http://").nth(1).and_then(|rest| rest.split_whitespace().next()) {
            Some(address) => Ok(Self { address: address.to_owned(), child, database: database.to_owned(), log, args: args.iter().map(|a| (*a).to_owned()).collect() }),
            None => {
                let _ = child.wait();
                Err(format!("{line}{}", std::fs::read_to_string(&log).unwrap_or_default()))
            }
        }
    }

    fn spawn(database: &str, port: u16, args: &[String], log: &Path, envs: &[(&str, &str)]) -> (Child, String) {
        let stderr = std::fs::OpenOptions::new().create(true).append(true).open(log).expect("log file");
        let mut command = Command::new(binary());
        command.args(["serve", "--listen", &format!("127.0.0.1:{port}"), "--database", database]).args(args).stdout(Stdio::piped()).stderr(stderr);
        command.env("ELO_LADDER_CHECKPOINT_EVERY", "7");
        for (name, value) in envs {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("elo-ladder starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("elo-ladder prints its address");
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("elo-ladder said {line:?}; its log: {}", std::fs::read_to_string(log).unwrap_or_default()))
            .to_owned();
        (child, address)
    }

    /// Starts the same server again (same database, port and arguments) after it stopped.
    pub fn restart(&mut self) {
        let _ = self.child.wait();
        let port = self.port();
        let (child, address) = Self::spawn(&self.database, port, &self.args, &self.log, &[]);
        self.child = child;
        self.address = address;
    }

    /// `kill -9`: no shutdown, no flush.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM: a graceful shutdown.
    pub fn terminate(&self) {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("kill");
        assert!(status.success());
    }

    /// Waits up to `limit` for the process to exit; its status, or `None` if it still runs.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if std::time::Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn port(&self) -> u16 {
        self.address.rsplit(':').next().and_then(|p| p.parse().ok()).expect("port")
    }

    /// Everything the server logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill9();
    }
}

/// Creates a key with `elo-ladder keys create`.
pub fn key(database: &str, scope: &str, ladder: Option<&str>) -> String {
    let mut command = Command::new(binary());
    command.args(["keys", "create", "--database", database, "--scope", scope]);
    if let Some(ladder) = ladder {
        command.args(["--ladder", ladder]);
    }
    let output = command.output().expect("keys create runs");
    assert!(output.status.success(), "keys create: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("utf-8").lines().last().expect("a key").to_owned()
}

/// A server on a fresh database with an admin, a report and a read key.
pub struct TestApp {
    pub server: Server,
    pub admin: String,
    pub report: String,
    pub read: String,
    /// Holds the SQLite file (removed with the app).
    _dir: TempDir,
}

impl TestApp {
    /// A server on an existing `database` (kept in `dir` for SQLite) with new keys.
    pub fn on(database: &str, dir: TempDir) -> Self {
        let server = Server::start(database, 0, 0);
        let (admin, report, read) = (key(database, "admin", None), key(database, "report", None), key(database, "read", None));
        Self { server, admin, report, read, _dir: dir }
    }

    pub fn spawn(backend: Backend) -> Self {
        Self::spawn_with(backend, 0)
    }

    pub fn spawn_with(backend: Backend, rate_limit: u32) -> Self {
        Self::spawn_args(backend, &["--rate-limit", &rate_limit.to_string(), "--auth-failure-limit", "0"])
    }

    /// A server started with `args`.
    pub fn spawn_args(backend: Backend, args: &[&str]) -> Self {
        let dir = TempDir::new("db");
        let mut database = database(backend, &dir);
        if backend == Backend::Sqlite {
            // Season ends and decay of every ladder over three players in steps of three
            // (the default is 2,500): every scenario runs through the staged path too.
            database.push_str("?event_step=3");
        }
        let server = Server::start_with(&database, 0, args);
        let (admin, report, read) = (key(&database, "admin", None), key(&database, "report", None), key(&database, "read", None));
        Self { server, admin, report, read, _dir: dir }
    }

    pub fn call(&self, method: &str, path: &str, key: &str, body: Option<&str>) -> (u16, String) {
        call(&self.server.address, method, path, Some(key), body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    /// A 2xx answer parsed, or a panic with the body.
    pub fn ok(&self, method: &str, path: &str, key: &str, body: Option<&str>) -> Value {
        let (status, text) = self.call(method, path, key, body);
        assert!((200..300).contains(&status), "{method} {path}: {status} {text}");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{method} {path}: {e}: {text}"))
    }

    /// A 200's body as text (admin key).
    pub fn ok_text(&self, path: &str) -> String {
        let (status, text) = self.call("GET", path, &self.admin, None);
        assert_eq!(status, 200, "GET {path}: {text}");
        text
    }

    pub fn put_ladder(&self, name: &str, config: &str) {
        let (status, text) = self.call("PUT", &format!("/v1/ladders/{name}"), &self.admin, Some(config));
        assert_eq!(status, 201, "{text}");
    }
}

/// One HTTP/1.1 request on a new connection; `Err` when the server cannot be reached or
/// the connection breaks (a client then retries).
pub fn call(address: &str, method: &str, path: &str, key: Option<&str>, body: Option<&str>) -> std::io::Result<(u16, String)> {
    let mut stream = TcpStream::connect(address)?;
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let body = body.unwrap_or("");
    let auth = key.map(|k| format!("Authorization: Bearer {k}\r\n")).unwrap_or_default();
    let request =
        format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\n{auth}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
    stream.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let text = String::from_utf8_lossy(&response);
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| std::io::Error::other(format!("no HTTP response: {text:?}")))?;
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| std::io::Error::other(format!("bad status line: {head:?}")))?;
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        return Ok((status, dechunk(body)?));
    }
    Ok((status, body.to_owned()))
}

/// A chunked body's content.
pub fn dechunk(mut rest: &str) -> std::io::Result<String> {
    let mut out = String::new();
    loop {
        let (size, after) = rest.split_once("\r\n").ok_or_else(|| std::io::Error::other("a chunk without its size line"))?;
        let size = usize::from_str_radix(size.trim(), 16).map_err(|e| std::io::Error::other(format!("chunk size {size:?}: {e}")))?;
        if size == 0 {
            return Ok(out);
        }
        out.push_str(after.get(..size).ok_or_else(|| std::io::Error::other("a short chunk"))?);
        rest = after.get(size + 2..).ok_or_else(|| std::io::Error::other("a chunk without its end"))?;
    }
}

/// The headers of a response (for Retry-After).
pub fn call_with_headers(address: &str, method: &str, path: &str, key: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    let request = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {key}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    let status = response.split_whitespace().nth(1).and_then(|s| s.parse().ok()).expect("status");
    (status, response)
}

// ---------------------------------------------------------------------------------------
// The replay: the journal through the engine, compared with what the server stores.

/// A player as the API shows it: name and state.
pub fn parse_player(value: &Value) -> (String, PlayerState) {
    let mut object = value.as_object().expect("a player object").clone();
    let name = object.remove("player").and_then(|v| v.as_str().map(str::to_owned)).expect("player name");
    object.remove("rank");
    object.remove("held");
    (name, serde_json::from_value(Value::Object(object)).expect("a player state"))
}

fn same_state(server: &PlayerState, engine: &PlayerState) -> bool {
    server == engine
        && server.rating.to_bits() == engine.rating.to_bits()
        && server.peak_rating.to_bits() == engine.peak_rating.to_bits()
        && server.last_played.to_bits() == engine.last_played.to_bits()
}

/// One page of the journal, asked again while entries are held back (PostgreSQL shows an
/// entry once no transaction anywhere in the cluster could still commit a lower seq).
pub fn journal_page(app: &TestApp, ladder: &str, after: i64, limit: usize) -> Value {
    let started = std::time::Instant::now();
    loop {
        let page = app.ok("GET", &format!("/v1/ladders/{ladder}/matches?after={after}&limit={limit}"), &app.read, None);
        if page["pending"] != Value::Bool(true) || page["entries"].as_array().map(Vec::len) == Some(limit) || started.elapsed() > Duration::from_secs(30) {
            return page;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every journal entry of a ladder, in seq order.
pub fn journal(app: &TestApp, ladder: &str) -> Vec<Value> {
    let mut entries = Vec::new();
    let mut after = 0;
    loop {
        let answer = journal_page(app, ladder, after, 1000);
        let page = answer["entries"].as_array().expect("entries").clone();
        match page.last() {
            Some(last) => after = last["seq"].as_i64().expect("seq"),
            None => {
                assert_eq!(answer["more"], Value::Bool(false), "an empty page that is not held back has nothing after it");
                break;
            }
        }
        entries.extend(page);
    }
    entries
}

/// `elo-ladder verify --database DB --ladder NAME`: its summary, or a panic with its error.
pub fn verify_database(database: &str, ladder: &str) -> String {
    let output = Command::new(binary()).args(["verify", "--database", database, "--ladder", ladder]).output().expect("elo-ladder verify");
    assert!(output.status.success(), "verify {ladder}: {}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `elo-ladder verify --journal FILE`: success and what it printed.
pub fn verify_journal(file: &Path) -> (bool, String) {
    let output = Command::new(binary()).args(["verify", "--journal"]).arg(file).output().expect("elo-ladder verify");
    (output.status.success(), format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr)))
}

/// A journal score as a C caller passes it: `(float)score_a`, widened as the engine does.
fn c_score(value: &Value) -> f64 {
    let score = value.as_f64().expect("score");
    let single = score as f32;
    assert_eq!(f64::from(single), score, "the journal keeps the f32 the server rated with");
    f64::from(single)
}

fn names(value: &Value) -> Vec<String> {
    value.as_array().expect("names").iter().map(|v| v.as_str().expect("a name").to_owned()).collect()
}

/// What a replay found.
pub struct Replay {
    pub entries: usize,
    pub players: usize,
    pub pool: Pool,
    pub index: HashMap<String, usize>,
}

/// Replays the ladder's journal through the engine: each match's results must equal the
/// engine's `rate_players` / `rate_teams` / `rate_placements` on the states before it (with
/// the ladder's rules, stamped with the entry's time), the engine's pool fed the same
/// journal must hold the same states, and every player the server stores (GET) must equal
/// the pool's bit for bit.
pub fn verify_replay(app: &TestApp, ladder: &str, config: &str) -> Replay {
    let mut rules: Rules = Config::from_json(config).expect("config");
    let mut zero_sum = rules.config().zero_sum_total.is_some();
    let mut pool = Pool::new(rules.clone());
    let mut index: HashMap<String, usize> = HashMap::new();
    let entries = journal(app, ladder);
    let mut previous_seq = 0;
    // The matches held for the current rating period (ladders with rating_periods).
    let mut held: Vec<Match> = Vec::new();
    for entry in &entries {
        let seq = entry["seq"].as_i64().expect("seq");
        assert!(seq > previous_seq, "seq increases");
        previous_seq = seq;
        let time = entry["time"].as_f64().expect("time");
        pool.set_clock(time).expect("clock");
        for name in names(&entry["joined"]) {
            assert!(!index.contains_key(&name), "{name} joined twice");
            index.insert(name, pool.add_players(1));
        }
        // The replay rule: annulled matches are skipped (their players joined above), a
        // corrected match counts with its latest correction, amendments themselves change
        // nothing.
        let kind = entry["kind"].as_str().expect("kind");
        if kind == "import" {
            // An imported player joins with the state the entry holds.
            let state: PlayerState = serde_json::from_value(entry["inputs"]["state"].clone()).expect("an import's state");
            let name = entry["inputs"]["player"].as_str().expect("an import's player");
            pool.set_player(index[name], state).expect("set_player");
            continue;
        }
        if entry["annulled"] == Value::Bool(true) || kind == "annul" || kind == "correct" {
            continue;
        }
        let inputs = if entry["corrected"].is_object() { &entry["corrected"] } else { &entry["inputs"] };
        let players: Vec<usize> = match kind {
            "pair" => vec![index[inputs["a"].as_str().expect("a")], index[inputs["b"].as_str().expect("b")]],
            "team" => names(&inputs["team_a"]).iter().chain(&names(&inputs["team_b"])).map(|n| index[n]).collect(),
            "free_for_all" => names(&inputs["entrants"]).iter().map(|n| index[n]).collect(),
            _ => Vec::new(),
        };
        let before: Vec<PlayerState> = players.iter().map(|&i| pool.player(i).expect("player")).collect();
        let mut expected = before.clone();
        let is_held = entry["results"][0]["held"] == Value::Bool(true);
        match kind {
            "pair" if is_held => {
                // Held for its period: nothing but the time played changes until the period
                // (or the season) ends.
                let outcome = Outcome::from_score(c_score(&inputs["score_a"])).expect("outcome");
                held.push(Match::new(players[0], players[1], outcome));
            }
            "period_end" => {
                pool.rate_period(&held, None).expect("rate_period");
                assert_eq!(entry["results"]["matches"].as_u64(), Some(held.len() as u64), "seq {seq}: the period's matches");
                held.clear();
            }
            "pair" => {
                let outcome = Outcome::from_score(c_score(&inputs["score_a"])).expect("outcome");
                let (a, b) = rules.rate_players(&before[0], &before[1], outcome).expect("rate_players");
                expected = vec![a, b];
                pool.apply(&[Match::new(players[0], players[1], outcome)], None).expect("pool apply");
            }
            "team" => {
                let outcome = Outcome::from_score(c_score(&inputs["score_a"])).expect("outcome");
                let split = names(&inputs["team_a"]).len();
                let (out_a, out_b) = expected.split_at_mut(split);
                rules.rate_teams(Team::new(&before[..split]), Team::new(&before[split..]), outcome, out_a, out_b).expect("rate_teams");
                assert!(!zero_sum, "zero-sum team matches are checked against the rule in their own test");
                pool.apply_teams(&[TeamMatch::new(&players[..split], &players[split..], outcome)]).expect("pool teams");
            }
            "free_for_all" => {
                let places: Vec<u32> = inputs["places"].as_array().expect("places").iter().map(|p| p.as_u64().expect("place") as u32).collect();
                rules.rate_placements(&before, &places, &mut expected).expect("rate_placements");
                pool.apply_placements(&[PlacementMatch { entrants: &players, places: &places }]).expect("pool placements");
            }
            "season_end" => {
                // A season end closes the open rating period first.
                if !held.is_empty() {
                    pool.rate_period(&held, None).expect("rate_period");
                    assert_eq!(entry["results"]["held_matches"].as_u64(), Some(held.len() as u64), "seq {seq}: the held matches the season end rated");
                    held.clear();
                }
                let records = pool.end_season(None);
                assert_eq!(entry["results"]["players"].as_u64(), Some(records.len() as u64));
                // The kept standings: the engine's records, best first (ties to the earlier
                // player), with the same bits.
                let season = entry["results"]["season"].as_i64().expect("season number");
                let mut expected: Vec<_> = records.iter().collect();
                expected.sort_by(|x, y| y.rating.total_cmp(&x.rating).then(x.player.cmp(&y.player)));
                let by_index: HashMap<usize, &String> = index.iter().map(|(name, i)| (*i, name)).collect();
                let mut offset = 0;
                let mut served = Vec::new();
                loop {
                    let page = app.ok("GET", &format!("/v1/ladders/{ladder}/seasons/{season}/leaderboard?limit=1000&offset={offset}"), &app.read, None);
                    let lines = page["entries"].as_array().expect("entries").clone();
                    if lines.is_empty() {
                        break;
                    }
                    offset += lines.len();
                    served.extend(lines);
                }
                assert_eq!(served.len(), expected.len(), "seq {seq}: one standing per player");
                for (rank, (line, record)) in served.iter().zip(&expected).enumerate() {
                    assert_eq!(line["rank"].as_u64(), Some(rank as u64 + 1));
                    assert_eq!(line["player"].as_str(), Some(by_index[&record.player].as_str()), "seq {seq}: rank {}", rank + 1);
                    let rating = line["rating"].as_f64().expect("rating") as f32;
                    assert_eq!(rating.to_bits(), record.rating.to_bits(), "seq {seq}: rank {} rating", rank + 1);
                    assert_eq!(
                        (line["games"].as_u64(), line["wins"].as_u64(), line["league"].as_u64()),
                        (Some(u64::from(record.games)), Some(u64::from(record.wins)), Some(u64::from(record.league)))
                    );
                }
                // A season end that brings in the next season's rules (as Pool::set_rules does).
                if let Some(next) = entry["inputs"].get("next_rules") {
                    rules = Config::from_json(&next.to_string()).expect("next rules");
                    zero_sum = rules.config().zero_sum_total.is_some();
                    pool.set_rules(rules.clone());
                }
            }
            "decay" => {
                let at = entry["results"]["decayed_through"].as_f64().expect("decay time");
                let moved = pool.apply_decay(at, None).expect("decay");
                assert_eq!(entry["results"]["moved"].as_u64(), Some(moved as u64), "seq {seq}: players decayed");
            }
            other => panic!("unknown journal kind {other}"),
        }
        if !players.is_empty() {
            let results = entry["results"].as_array().expect("results");
            assert_eq!(results.len(), players.len());
            for (i, result) in results.iter().enumerate() {
                let (name, state) = parse_player(result);
                assert_eq!(index[&name], players[i], "seq {seq}: results in the match's order");
                let rule = if is_held { expected[i] } else { PlayerState { last_played: time, ..expected[i] } };
                assert_eq!(result["held"] == Value::Bool(true), is_held, "seq {seq}: every player of a held match is marked");
                assert!(same_state(&state, &rule), "seq {seq}: {name}: server {state:?}, engine rule {rule:?}");
                if !zero_sum {
                    let pooled = pool.player(players[i]).expect("pooled");
                    assert!(same_state(&state, &pooled), "seq {seq}: {name}: server {state:?}, engine pool {pooled:?}");
                }
            }
            // A held match's answer shows the states before it; the stored states have the
            // time played.
            if is_held && kind == "pair" {
                for &i in &players {
                    let state = pool.player(i).expect("player");
                    pool.set_player(i, PlayerState { last_played: time, ..state }).expect("set_player");
                }
            }
        }
    }
    // The hash chain and the same replay, by the server's own verifier (an outsider's view).
    let verified = verify_database(&app.server.database, ladder);
    assert!(verified.contains(&format!("{} entries", entries.len())), "{verified}");
    // Every rank the server gives is the replayed pool's (ties to the earlier player): each
    // player's own, every page of the board (small pages, so most start deep, where the
    // server walks its rank buckets), and the view around a few players.
    let order = pool.top(index.len());
    let name_of: HashMap<usize, &String> = index.iter().map(|(name, &i)| (i, name)).collect();
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(rank, &i)| (i, rank)).collect();
    for (name, &i) in &index {
        let served = app.ok("GET", &format!("/v1/ladders/{ladder}/players/{name}"), &app.read, None);
        let (_, state) = parse_player(&served);
        let pooled = pool.player(i).expect("pooled");
        assert!(same_state(&state, &pooled), "{name}: stored {state:?}, engine replay {pooled:?}");
        assert_eq!(served["rank"].as_u64(), Some(position[&i] as u64 + 1), "{name}: rank");
    }
    let page = 7;
    for offset in (0..=order.len()).step_by(page) {
        let served = app.ok("GET", &format!("/v1/ladders/{ladder}/leaderboard?limit={page}&offset={offset}"), &app.read, None);
        let lines = served["entries"].as_array().expect("entries");
        let expected = &order[offset..(offset + page).min(order.len())];
        assert_eq!(lines.len(), expected.len(), "page at {offset}");
        for (k, (line, &i)) in lines.iter().zip(expected).enumerate() {
            assert_eq!((line["rank"].as_u64(), line["player"].as_str()), (Some((offset + k + 1) as u64), Some(name_of[&i].as_str())), "page at {offset}, line {k}");
        }
    }
    for &i in order.iter().step_by(order.len() / 5 + 1) {
        let served = app.ok("GET", &format!("/v1/ladders/{ladder}/leaderboard?around={}&limit=5", name_of[&i]), &app.read, None);
        let lines = served["entries"].as_array().expect("entries");
        let first = lines.first().and_then(|l| l["rank"].as_u64()).expect("a line") as usize;
        for (k, line) in lines.iter().enumerate() {
            assert_eq!(line["player"].as_str(), Some(name_of[&order[first - 1 + k]].as_str()), "around {}: line {k}", name_of[&i]);
            assert_eq!(line["rank"].as_u64(), Some((first + k) as u64));
        }
        assert!(lines.iter().any(|l| l["player"].as_str() == Some(name_of[&i].as_str())), "around includes the player");
    }
    Replay { entries: entries.len(), players: index.len(), pool, index }
}
