//! `elo-ladder`: `serve` the ladder API; `keys create`, `keys revoke`, `keys list`.

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Command};
use ranking_elo_ladder::keys::{self, Scope};
use ranking_elo_ladder::store::database_url::{PasswordSources, DEFAULT_MAX_CONNECTIONS};
use ranking_elo_ladder::telemetry::{self, LogFormat};
use ranking_elo_ladder::tokens::TokenOptions;
use ranking_elo_ladder::{ApiSettings, AppState, ConnectionLimits, DatabaseUrl, Store};

const DEFAULT_DATABASE: &str = "sqlite://ladder.db";

fn database_args(command: Command) -> Command {
    command
        .arg(
            Arg::new("database")
                .long("database")
                .value_name("URL")
                .env("DATABASE_URL")
                .hide_env_values(true)
                .default_value(DEFAULT_DATABASE)
                .help("sqlite://PATH[?synchronous=normal] or postgres://USER@HOST:PORT/NAME[?sslmode=verify-full&sslrootcert=CA.pem]"),
        )
        .arg(
            Arg::new("database-password-file")
                .long("database-password-file")
                .value_name("PATH")
                .value_parser(clap::value_parser!(PathBuf))
                .help("PostgreSQL password from a file (else from the URL, else PGPASSWORD)"),
        )
}

fn seconds(name: &'static str, default: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).value_name("SECONDS").default_value(default).value_parser(clap::value_parser!(u64).range(1..)).help(help)
}

fn millis(name: &'static str, default: &'static str, range: std::ops::RangeInclusive<u64>, help: &'static str) -> Arg {
    Arg::new(name).long(name).value_name("MS").default_value(default).value_parser(clap::value_parser!(u64).range(range)).help(help)
}

fn path_arg(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).value_name("FILE").value_parser(clap::value_parser!(PathBuf)).help(help)
}

fn count(name: &'static str, default: &'static str, help: &'static str) -> Arg {
    Arg::new(name).long(name).value_name("N").default_value(default).value_parser(clap::value_parser!(u32)).help(help)
}

fn command() -> Command {
    Command::new("elo-ladder")
        .about("An authoritative Elo ladder server over the ranking-elo engine (HTTP + SQLite or PostgreSQL)")
        .subcommand_required(true)
        .subcommand(
            database_args(Command::new("serve").about("Serve the ladder API (runs the database migrations first)"))
                .arg(Arg::new("listen").long("listen").value_name("ADDR").default_value("127.0.0.1:8080").help("address and port to listen on"))
                .arg(count("rate-limit", "200", "requests per second per API key, shared by every server on the database (0: no limit)"))
                .arg(count("auth-failure-limit", "30", "failed authentications per minute per client address before 429 (0: no limit)"))
                .arg(count("max-connections", "1024", "open client connections at most (more are closed at once)"))
                .arg(count("max-connections-per-address", "64", "open client connections per client address at most"))
                .arg(count("max-db-connections", "32", "PostgreSQL connections this server keeps at most"))
                .arg(count(
                    "committers",
                    "2",
                    "PostgreSQL: transactions of match reports in flight at once (group commit; 1 can do better when several servers share a small database machine)",
                ))
                .arg(seconds("header-timeout", "10", "the longest a client may take to send a request's head"))
                .arg(seconds("body-timeout", "10", "the longest a client may take to send a request's body"))
                .arg(seconds("idle-timeout", "60", "keep-alive connections silent this long are closed"))
                .arg(seconds("request-timeout", "60", "a request not answered within this gets 503 (its work goes on; retry with the same id)"))
                .arg(seconds("shutdown-grace", "10", "on SIGTERM, how long requests in flight may finish"))
                .arg(seconds("pending-timeout", "30", "PostgreSQL: how long an export waits for entries held back by a transaction open elsewhere"))
                .arg(path_arg("jwt-secret-file", "player tokens: an HS256 secret shared with the identity provider (the file's bytes, trailing whitespace ignored; 32 bytes at least)"))
                .arg(path_arg("jwt-jwks", "player tokens: the identity provider's public keys as a JSON Web Key Set (RSA, P-256, Ed25519; each token's kid picks one)"))
                .arg(
                    path_arg("jwt-public-key", "player tokens: a PEM public key (RSA, P-256, Ed25519) whose kid is the file's name without its extension; repeat for several")
                        .action(ArgAction::Append),
                )
                .arg(
                    Arg::new("matchmaking-interval-ms")
                        .long("matchmaking-interval-ms")
                        .value_name("MS")
                        .value_parser(clap::value_parser!(u64).range(10..=60_000))
                        .default_value("1000")
                        .help("how often each matchmaking queue is ticked (milliseconds)"),
                )
                .arg(millis("webhook-interval-ms", "500", 10..=60_000, "how often the webhook subscriptions are read for entries to deliver (milliseconds)"))
                .arg(millis("webhook-timeout-ms", "10000", 100..=120_000, "the longest one webhook delivery may take: connect, send, answer (milliseconds)"))
                .arg(millis("webhook-backoff-ms", "5000", 10..=3_600_000, "the wait before a failed webhook delivery is tried again, doubled by each failure in a row up to an hour (milliseconds)"))
                .arg(
                    Arg::new("webhook-parallel")
                        .long("webhook-parallel")
                        .value_name("N")
                        .default_value("8")
                        .value_parser(clap::value_parser!(u64).range(1..=64))
                        .help("webhook subscriptions this server delivers at once (on PostgreSQL each holds a database connection while it sends: keep it well below --max-db-connections)"),
                )
                .arg(path_arg("webhook-root-cert", "a PEM file of the root certificates https webhook receivers must chain to (default: the operating system's)"))
                .arg(Arg::new("jwt-issuer").long("jwt-issuer").value_name("ISS").help("player tokens must carry this iss"))
                .arg(Arg::new("jwt-audience").long("jwt-audience").value_name("AUD").help("player tokens must carry this aud"))
                .arg(Arg::new("jwt-player-claim").long("jwt-player-claim").value_name("CLAIM").default_value("sub").help("the token claim that names the player"))
                .arg(
                    Arg::new("checkpoint-every")
                        .long("checkpoint-every")
                        .value_name("ENTRIES")
                        .env("ELO_LADDER_CHECKPOINT_EVERY")
                        .default_value("50000")
                        .value_parser(clap::value_parser!(u64).range(1..))
                        .help("a rebuild checkpoint every this many journal entries of a ladder (an amendment replays from the latest one before its match)"),
                )
                .arg(
                    Arg::new("drain-delay")
                        .long("drain-delay")
                        .value_name("SECONDS")
                        .default_value("0")
                        .value_parser(clap::value_parser!(u64))
                        .help("on SIGTERM, keep serving this long with /readyz answering 503 before closing the listener"),
                )
                .arg(
                    Arg::new("cors-origin")
                        .long("cors-origin")
                        .value_name("ORIGIN")
                        .action(ArgAction::Append)
                        .help("allow browser pages from this origin (e.g. https://game.example); repeatable; none by default"),
                )
                .arg(
                    Arg::new("metrics-listen")
                        .long("metrics-listen")
                        .value_name("ADDR")
                        .help("serve GET /metrics without a key on this (private) address; /metrics on the API needs an admin key"),
                )
                .arg(Arg::new("log-format").long("log-format").value_parser(["text", "json"]).default_value("text").help("request and event logs on stderr: text or JSON lines")),
        )
        .subcommand(
            database_args(Command::new("verify").about("Check a ladder's hash chain and replay its journal through the engine (from the database, or an export)"))
                .arg(Arg::new("ladder").long("ladder").value_name("NAME").help("only this ladder (default: every ladder of the database)"))
                .arg(Arg::new("journal").long("journal").value_name("FILE").value_parser(clap::value_parser!(PathBuf)).help("an export (GET …/export) instead of a database"))
                .arg(seconds("pending-timeout", "30", "PostgreSQL: how long to wait for entries held back by a transaction open elsewhere")),
        )
        .subcommand(
            database_args(Command::new("import").about(
                "Import players with their ratings and a match history into a ladder from NDJSON (docs/ladder-server.md#import): every line is checked first, then applied in order, each once per id",
            ))
            .arg(Arg::new("ladder").long("ladder").value_name("NAME").required(true).help("the ladder (create it first: PUT /v1/ladders/{ladder})"))
            .arg(Arg::new("file").value_name("FILE").required(true).value_parser(clap::value_parser!(PathBuf)).help("the NDJSON file: one player or match per line")),
        )
        .subcommand(database_args(Command::new("scrub").about(
            "Rewrite the tables that hold player names into fresh storage, so that old row versions (erased names among them) leave the database's files; PostgreSQL locks each table while it is rewritten",
        )))
        .subcommand(
            Command::new("healthcheck")
                .about("Ask a running server whether it is ready (GET /readyz); exit 0 when it answers 200: a container's health check, with no shell or curl in the image")
                .arg(Arg::new("url").long("url").value_name("URL").default_value("http://127.0.0.1:8080/readyz").help("http://HOST:PORT/PATH of the server"))
                .arg(seconds("timeout", "3", "how long to wait for the answer")),
        )
        .subcommand(
            Command::new("tokens").about("Player tokens (JWT) for tests and tools; a studio's identity provider issues the real ones").subcommand_required(true).subcommand(
                Command::new("mint")
                    .about("Print an HS256 player token signed with a secret file (as serve --jwt-secret-file reads it)")
                    .arg(path_arg("secret-file", "the HS256 secret").required(true))
                    .arg(Arg::new("player").long("player").value_name("NAME").required(true).help("the player (the sub claim)"))
                    .arg(Arg::new("ttl").long("ttl").value_name("SECONDS").value_parser(clap::value_parser!(u64).range(1..=31_536_000)).default_value("3600").help("seconds until it expires"))
                    .arg(Arg::new("issuer").long("issuer").value_name("ISS").help("the iss claim"))
                    .arg(Arg::new("audience").long("audience").value_name("AUD").help("the aud claim")),
            ),
        )
        .subcommand(
            Command::new("keys")
                .about("Create, revoke or list API keys (the database keeps only a hash)")
                .subcommand_required(true)
                .subcommand(
                    database_args(Command::new("create").about("Create a key; it is printed once, on stdout's last line"))
                        .arg(Arg::new("scope").long("scope").required(true).value_parser(["read", "report", "admin"]).help("read < report < admin"))
                        .arg(Arg::new("ladder").long("ladder").value_name("NAME").help("limit the key to one ladder")),
                )
                .subcommand(
                    database_args(Command::new("revoke").about("Revoke a key (by the key or its id, the 16 hex digits after elo_)"))
                        .arg(Arg::new("key").required(true).value_name("KEY_OR_ID")),
                )
                .subcommand(
                    database_args(Command::new("list").about("List the keys: id, scope, ladder, created, revoked (never a secret)"))
                        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("one JSON object per line")),
                ),
        )
}

/// `elo-ladder healthcheck`: one `GET`, the answer's status line on stdout.
async fn healthcheck(args: &ArgMatches) -> Result<(), String> {
    let url = args.get_one::<String>("url").map_or("http://127.0.0.1:8080/readyz", String::as_str);
    let target = ranking_elo_ladder::healthcheck::Target::parse(url)?;
    let timeout = Duration::from_secs(args.get_one::<u64>("timeout").copied().unwrap_or(3));
    let answer = ranking_elo_ladder::healthcheck::check(&target, timeout).await?;
    println!("{answer}");
    Ok(())
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => return fail(&format!("cannot start the runtime: {error}")),
    };
    let result = runtime.block_on(async {
        match matches.subcommand() {
            Some(("serve", args)) => serve(args).await,
            Some(("verify", args)) => verify(args).await,
            Some(("import", args)) => import(args).await,
            Some(("scrub", args)) => scrub(args).await,
            Some(("healthcheck", args)) => healthcheck(args).await,
            Some(("tokens", tokens)) => match tokens.subcommand() {
                Some(("mint", args)) => mint_token(args),
                _ => Err("elo-ladder tokens mint (see --help)".to_owned()),
            },
            Some(("keys", keys)) => match keys.subcommand() {
                Some(("create", args)) => create_key(args).await,
                Some(("revoke", args)) => revoke_key(args).await,
                Some(("list", args)) => list_keys(args).await,
                _ => Err("keys create | keys revoke | keys list".to_owned()),
            },
            _ => Err("serve | keys".to_owned()),
        }
    });
    // Tasks still running (a connection past the grace period) do not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(500));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(&message),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("elo-ladder: {message}");
    ExitCode::FAILURE
}

fn text<'a>(args: &'a ArgMatches, name: &str) -> &'a str {
    args.get_one::<String>(name).map_or("", String::as_str)
}

fn number(args: &ArgMatches, name: &str) -> u32 {
    args.get_one::<u32>(name).copied().unwrap_or(0)
}

fn duration(args: &ArgMatches, name: &str) -> Duration {
    Duration::from_secs(args.get_one::<u64>(name).copied().unwrap_or(10))
}

/// The deliverer's settings; a root certificate file that cannot be read stops the server
/// at its start.
fn webhook_settings(args: &ArgMatches) -> Result<ranking_elo_ladder::deliver::Settings, String> {
    let ms = |name: &str| Duration::from_millis(args.get_one::<u64>(name).copied().unwrap_or(1000));
    let root_cert = args.get_one::<PathBuf>("webhook-root-cert").cloned();
    if let Some(path) = &root_cert {
        ranking_elo_ladder::deliver::client_config(Some(path))?;
    }
    Ok(ranking_elo_ladder::deliver::Settings {
        interval: ms("webhook-interval-ms"),
        timeout: ms("webhook-timeout-ms"),
        backoff: ms("webhook-backoff-ms"),
        parallel: usize::try_from(args.get_one::<u64>("webhook-parallel").copied().unwrap_or(8)).unwrap_or(8),
        root_cert,
    })
}

fn database_url(args: &ArgMatches) -> Result<DatabaseUrl, String> {
    let passwords = PasswordSources::from_env(args.get_one::<PathBuf>("database-password-file").cloned());
    let mut url = DatabaseUrl::parse_with(text(args, "database"), &passwords)?;
    if let DatabaseUrl::Postgres(settings) = &mut url {
        if let Ok(Some(max)) = args.try_get_one::<u32>("max-db-connections") {
            settings.max_connections = usize::try_from(*max).unwrap_or(DEFAULT_MAX_CONNECTIONS).max(2);
        }
        if let Ok(Some(committers)) = args.try_get_one::<u32>("committers") {
            settings.committers = usize::try_from(*committers).unwrap_or(1).clamp(1, 16);
        }
    }
    Ok(url)
}

async fn open(args: &ArgMatches) -> Result<Store, String> {
    ranking_elo_ladder::store::open(&database_url(args)?, ranking_elo_ladder::store::Role::Tool).await
}

/// Lets the process hold as many descriptors as it may (one per client connection).
fn raise_descriptor_limit() {
    #[cfg(unix)]
    // SAFETY: getrlimit and setrlimit read and write a plain struct we own.
    unsafe {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

async fn serve(args: &ArgMatches) -> Result<(), String> {
    telemetry::init_logs(if text(args, "log-format") == "json" { LogFormat::Json } else { LogFormat::Text });
    telemetry::install_metrics();
    raise_descriptor_limit();
    let url = database_url(args)?;
    let store = ranking_elo_ladder::store::open(&url, ranking_elo_ladder::store::Role::Serve).await?;
    let listen = text(args, "listen");
    let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let settings = ApiSettings {
        rate_limit: number(args, "rate-limit"),
        auth_failures_per_minute: number(args, "auth-failure-limit"),
        request_timeout: duration(args, "request-timeout"),
        body_timeout: duration(args, "body-timeout"),
        cors_origins: args.get_many::<String>("cors-origin").map(|v| v.cloned().collect()).unwrap_or_default(),
        pending_timeout: duration(args, "pending-timeout"),
        tokens: ranking_elo_ladder::tokens::Tokens::load(&TokenOptions {
            secret_file: args.get_one::<PathBuf>("jwt-secret-file").cloned(),
            jwks_file: args.get_one::<PathBuf>("jwt-jwks").cloned(),
            public_key_files: args.get_many::<PathBuf>("jwt-public-key").map(|v| v.cloned().collect()).unwrap_or_default(),
            issuer: args.get_one::<String>("jwt-issuer").cloned(),
            audience: args.get_one::<String>("jwt-audience").cloned(),
            player_claim: args.get_one::<String>("jwt-player-claim").cloned(),
        })?
        .map(std::sync::Arc::new),
        matchmaking_interval: Duration::from_millis(args.get_one::<u64>("matchmaking-interval-ms").copied().unwrap_or(1000)),
        webhooks: webhook_settings(args)?,
    };
    let limits = ConnectionLimits {
        max_connections: number(args, "max-connections") as usize,
        max_per_address: number(args, "max-connections-per-address") as usize,
        header_timeout: duration(args, "header-timeout"),
        idle_timeout: duration(args, "idle-timeout"),
        shutdown_grace: duration(args, "shutdown-grace"),
        drain_delay: Duration::from_secs(args.get_one::<u64>("drain-delay").copied().unwrap_or(0)),
    };
    ranking_elo_ladder::checkpoint::set_every(usize::try_from(args.get_one::<u64>("checkpoint-every").copied().unwrap_or(50_000)).unwrap_or(usize::MAX));
    let state = AppState::new(store, settings);
    if let Some(metrics_listen) = args.get_one::<String>("metrics-listen") {
        let metrics = tokio::net::TcpListener::bind(metrics_listen).await.map_err(|e| format!("cannot listen on {metrics_listen}: {e}"))?;
        let metrics_address = metrics.local_addr().map_err(|e| e.to_string())?;
        tracing::info!(address = %metrics_address, "metrics on http://{metrics_address}/metrics");
        tokio::spawn(ranking_elo_ladder::serve_metrics(metrics, std::sync::Arc::clone(&state)));
    }
    println!("elo-ladder listening on http://{address} (database {})", url.redacted());
    let _ = std::io::stdout().flush();
    tracing::info!(address = %address, database = %url.redacted(), "listening");
    ranking_elo_ladder::serve(listener, state, limits, ranking_elo_ladder::shutdown_signal()).await.map_err(|e| e.to_string())?;
    tracing::info!("stopped");
    Ok(())
}

async fn create_key(args: &ArgMatches) -> Result<(), String> {
    let scope = Scope::parse(text(args, "scope"))?;
    let ladder = args.get_one::<String>("ladder").map(String::as_str);
    if let Some(name) = ladder {
        ranking_elo_ladder::model::check_name(name, "ladder").map_err(|e| e.message)?;
    }
    let store = open(args).await?;
    let key = keys::generate()?;
    store.create_key(&key.id, &key.hash, scope.as_str(), ladder).await.map_err(|e| e.message)?;
    eprintln!("created key {} (scope {}{}); it is shown once:", key.id, scope.as_str(), ladder.map(|l| format!(", ladder {l}")).unwrap_or_default());
    println!("{}", key.key);
    Ok(())
}

async fn revoke_key(args: &ArgMatches) -> Result<(), String> {
    let given = text(args, "key");
    let id = keys::split(given).map_or(given, |(id, _)| id);
    let store = open(args).await?;
    if store.revoke_key(id).await.map_err(|e| e.message)? {
        println!("revoked key {id}");
        Ok(())
    } else {
        Err(format!("no active key {id}"))
    }
}

async fn list_keys(args: &ArgMatches) -> Result<(), String> {
    let store = open(args).await?;
    let keys = store.list_keys().await.map_err(|e| e.message)?;
    let mut out = std::io::stdout().lock();
    if args.get_flag("json") {
        for key in &keys {
            writeln!(out, "{}", serde_json::to_string(key).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    writeln!(out, "{:<16}  {:<6}  {:<24}  {:<20}  revoked", "id", "scope", "ladder", "created (UTC)").map_err(|e| e.to_string())?;
    for key in &keys {
        let revoked = key.revoked.map_or_else(|| "-".to_owned(), utc);
        writeln!(out, "{:<16}  {:<6}  {:<24}  {:<20}  {revoked}", key.id, key.scope, key.ladder.as_deref().unwrap_or("(any)"), utc(key.created)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Unix seconds as `YYYY-MM-DD hh:mm:ss`.
fn utc(seconds: f64) -> String {
    #[allow(clippy::cast_possible_truncation)]
    let total = seconds.floor() as i64;
    let (days, rest) = (total.div_euclid(86_400), total.rem_euclid(86_400));
    // Civil from days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}", rest / 3600, rest % 3600 / 60, rest % 60)
}

/// `elo-ladder tokens mint`: prints an HS256 player token.
fn mint_token(args: &ArgMatches) -> Result<(), String> {
    let secret = ranking_elo_ladder::tokens::read_secret(args.get_one::<PathBuf>("secret-file").ok_or("--secret-file")?)?;
    let player = text(args, "player");
    ranking_elo_ladder::model::check_name(player, "player").map_err(|e| e.message)?;
    let ttl = args.get_one::<u64>("ttl").copied().unwrap_or(3600);
    let get = |name: &str| args.get_one::<String>(name).map(String::as_str);
    println!("{}", ranking_elo_ladder::tokens::mint(&secret, player, ttl, get("issuer"), get("audience"))?);
    Ok(())
}

/// `elo-ladder scrub`: see [`ranking_elo_ladder::store::LadderStore::scrub`].
async fn scrub(args: &ArgMatches) -> Result<(), String> {
    let store = open(args).await?;
    let done = store.scrub().await.map_err(|e| format!("scrub: {}", e.message))?;
    println!("{done}");
    Ok(())
}

/// `elo-ladder import`: the file is read twice (checked, then applied), never held whole.
async fn import(args: &ArgMatches) -> Result<(), String> {
    use ranking_elo_ladder::error::ApiError;
    use std::io::BufRead as _;
    let store = open(args).await?;
    let name = args.get_one::<String>("ladder").map_or("", String::as_str);
    let ladder = store.ladder(name).await.map_err(|e| e.message)?.ok_or_else(|| format!("there is no ladder {name:?}: create it first (PUT /v1/ladders/{name})"))?;
    let path = args.get_one::<PathBuf>("file").cloned().unwrap_or_default();
    let source = move || -> Result<Box<dyn Iterator<Item = Result<String, ApiError>> + Send>, ApiError> {
        let file = std::fs::File::open(&path).map_err(|e| ApiError::bad_request(format!("{}: {e}", path.display())))?;
        let shown = path.display().to_string();
        Ok(Box::new(std::io::BufReader::new(file).lines().map(move |line| line.map_err(|e| ApiError::bad_request(format!("{shown}: {e}"))))))
    };
    let started = std::time::Instant::now();
    let mut reported = 0;
    let summary = ranking_elo_ladder::import::run(&store, std::sync::Arc::new(ladder), &source, |tally| {
        let done = tally.applied + tally.already_applied;
        if done >= reported + 100_000 {
            reported = done;
            eprintln!("elo-ladder import: {done} lines ({} applied now) in {:.1} s", tally.applied, started.elapsed().as_secs_f64());
        }
    })
    .await
    .map_err(|e| e.message)?;
    println!("{}", serde_json::to_string(&summary).map_err(|e| e.to_string())?);
    eprintln!("elo-ladder import: done in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

async fn verify(args: &ArgMatches) -> Result<(), String> {
    if let Some(path) = args.get_one::<PathBuf>("journal") {
        let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let line = ranking_elo_ladder::verify::export(std::io::BufReader::new(file)).map_err(|e| format!("{}: {e}", path.display()))?;
        println!("{line}");
        return Ok(());
    }
    let store = open(args).await?;
    let only = args.get_one::<String>("ladder").map(String::as_str);
    let ladders = store.ladders(only).await.map_err(|e| e.message)?;
    if ladders.is_empty() {
        return Err(only.map_or_else(|| "the database has no ladder".to_owned(), |name| format!("there is no ladder {name:?}")));
    }
    for summary in ladders {
        let line = verify_ladder_again_if_amended(&store, &summary, args).await?;
        println!("{line}");
    }
    Ok(())
}

/// Waits while a change in steps is under way, then verifies one ladder; again (up to 5
/// times) when it was amended, or erased from, while it was read: what was read then mixes
/// two states of the journal, and a mismatch would be no sign of tampering.
async fn verify_ladder_again_if_amended(store: &Store, summary: &ranking_elo_ladder::store::LadderSummary, args: &ArgMatches) -> Result<String, String> {
    let patience = duration(args, "pending-timeout");
    for _ in 0..5 {
        let ladder = store.ladder(&summary.name).await.map_err(|e| e.message)?.ok_or_else(|| format!("ladder {:?} disappeared", summary.name))?;
        let waiting = std::time::Instant::now();
        let before = loop {
            let (generation, under_way) = store.amendment_generation(&ladder).await.map_err(|e| e.message)?;
            if !under_way {
                break generation;
            }
            if waiting.elapsed() > patience {
                return Err(format!("ladder {}: a season end, decay or amendment stayed under way for {} s", ladder.name, patience.as_secs()));
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        };
        let result = verify_ladder(store, summary, &ladder, args).await;
        if store.amendment_generation(&ladder).await.map_err(|e| e.message)? == (before, false) {
            return result;
        }
    }
    Err(format!("ladder {}: amended while it was verified, 5 times in a row; verify a copy or at a quiet moment", summary.name))
}

/// Verifies one ladder: its journal, history lines, standings, players and rank counts.
async fn verify_ladder(
    store: &Store,
    summary: &ranking_elo_ladder::store::LadderSummary,
    ladder: &ranking_elo_ladder::ladder::Ladder,
    args: &ArgMatches,
) -> Result<String, String> {
    use ranking_elo_ladder::verify::{Exported, Verifier};
    let mut verifier = Verifier::with_derived_rows(ladder).map_err(|e| e.to_string())?;
    verifier.history_kept_since(store.history_kept_since(ladder).await.map_err(|e| e.message)?);
    let mut after = 0;
    // Every entry committed now must be verified (entries held back by an open
    // transaction for over 30 s fail the check instead of being left out).
    let committed = summary.last_seq;
    let started = std::time::Instant::now();
    // The journal to its end, then the players; a ladder that takes reports meanwhile
    // has moved past the journal read, so its new entries are verified and the players
    // read again (a few times: a busy ladder's players are then not compared, and the
    // line says so).
    let mut players = None;
    for _ in 0..5 {
        loop {
            let page = store.journal(ladder, after, 1000, None).await.map_err(|e| e.message)?;
            if page.entries.is_empty() {
                if page.pending && started.elapsed() < duration(args, "pending-timeout") {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
                break;
            }
            let from = after;
            for entry in &page.entries {
                after = entry.seq;
                let exported: Exported =
                    serde_json::to_string(entry).ok().and_then(|text| serde_json::from_str(&text).ok()).ok_or_else(|| format!("seq {}: cannot read", entry.seq))?;
                verifier.entry(&exported).map_err(|e| format!("ladder {}: {e}", ladder.name))?;
            }
            // The page's history lines, as the replay gives them.
            let lines = store.history_lines(ladder, from, after).await.map_err(|e| e.message)?;
            verifier.check_history(&lines).map_err(|e| format!("ladder {}: {e}", ladder.name))?;
        }
        let read = store.all_players(ladder).await.map_err(|e| e.message)?;
        let moved = store.journal(ladder, after, 1, None).await.map_err(|e| e.message)?;
        if moved.entries.is_empty() && !moved.pending {
            players = Some(read);
            break;
        }
    }
    // Every ended season's kept standings, as the replay gives them.
    // (Seasons ended after the journal read are for the next verify.)
    let kept: Vec<i64> = store.seasons(ladder).await.map_err(|e| e.message)?.iter().filter(|s| s.seq <= after).map(|s| s.season).collect();
    if kept != verifier.seasons() {
        return Err(format!("ladder {}: the database keeps the standings of seasons {kept:?}; the journal ends seasons {:?}", ladder.name, verifier.seasons()));
    }
    for season in kept {
        let mut standings = Vec::new();
        loop {
            let page = store.season_standings(ladder, season, 1000, i64::try_from(standings.len()).unwrap_or(i64::MAX)).await.map_err(|e| e.message)?.unwrap_or_default();
            let done = page.len() < 1000;
            standings.extend(page);
            if done {
                break;
            }
        }
        verifier.check_standings(season, &standings).map_err(|e| format!("ladder {}: {e}", ladder.name))?;
    }
    if after < committed {
        return Err(format!(
            "ladder {}: the journal could be read through seq {after} only; it reached seq {committed} when verify started (entries held back for {} s by a transaction still open)",
            ladder.name,
            duration(args, "pending-timeout").as_secs()
        ));
    }
    let result = verifier.finish(players.as_deref()).map_err(|e| format!("ladder {}: {e}", ladder.name))?;
    // The rank counts against the players, in one snapshot.
    if let Some((level, bucket, stored, counted)) = store.rank_mismatches(ladder).await.map_err(|e| e.message)?.first() {
        return Err(format!("ladder {}: rank bucket {bucket} (level {level}) counts {stored} players, the ladder has {counted} there", ladder.name));
    }
    // The tags' copies of their players and their counts.
    if let Some(mismatch) = store.tag_mismatches(ladder).await.map_err(|e| e.message)?.first() {
        return Err(format!("ladder {}: {mismatch}", ladder.name));
    }
    let unchecked = if players.is_none() { " (players not compared: the ladder kept taking reports; verify a copy or a quiet moment)" } else { "" };
    Ok(format!("{}{unchecked}", result.line(&ladder.name)))
}
