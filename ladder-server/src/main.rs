//! `elo-ladder`: `serve` the ladder API, `keys create` and `keys revoke`.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Arg, ArgMatches, Command};
use ranking_elo_ladder::keys::{self, Scope};
use ranking_elo_ladder::{ApiSettings, DatabaseUrl, Store};

const DEFAULT_DATABASE: &str = "sqlite://ladder.db";

fn database_arg() -> Arg {
    Arg::new("database").long("database").value_name("URL").default_value(DEFAULT_DATABASE).help("sqlite://PATH[?synchronous=normal] or postgres://USER@HOST:PORT/NAME")
}

fn command() -> Command {
    Command::new("elo-ladder")
        .about("An authoritative Elo ladder server over the ranking-elo engine (HTTP + SQLite or PostgreSQL)")
        .subcommand_required(true)
        .subcommand(
            Command::new("serve")
                .about("Serve the ladder API (runs the database migrations first)")
                .arg(Arg::new("listen").long("listen").value_name("ADDR").default_value("127.0.0.1:8080").help("address and port to listen on"))
                .arg(database_arg())
                .arg(
                    Arg::new("rate-limit")
                        .long("rate-limit")
                        .value_name("N")
                        .default_value("200")
                        .value_parser(clap::value_parser!(u32))
                        .help("requests per second per API key (0: no limit)"),
                ),
        )
        .subcommand(
            Command::new("keys")
                .about("Create or revoke API keys (the database keeps only a hash)")
                .subcommand_required(true)
                .subcommand(
                    Command::new("create")
                        .about("Create a key; it is printed once, on stdout's last line")
                        .arg(database_arg())
                        .arg(Arg::new("scope").long("scope").required(true).value_parser(["read", "report", "admin"]).help("read < report < admin"))
                        .arg(Arg::new("ladder").long("ladder").value_name("NAME").help("limit the key to one ladder")),
                )
                .subcommand(
                    Command::new("revoke")
                        .about("Revoke a key (by the key or its id, the 16 hex digits after elo_)")
                        .arg(database_arg())
                        .arg(Arg::new("key").required(true).value_name("KEY_OR_ID")),
                ),
        )
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
            Some(("keys", keys)) => match keys.subcommand() {
                Some(("create", args)) => create_key(args).await,
                Some(("revoke", args)) => revoke_key(args).await,
                _ => Err("keys create | keys revoke".to_owned()),
            },
            _ => Err("serve | keys".to_owned()),
        }
    });
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

async fn open(args: &ArgMatches) -> Result<Store, String> {
    Store::open(&DatabaseUrl::parse(text(args, "database"))?).await
}

async fn serve(args: &ArgMatches) -> Result<(), String> {
    let store = open(args).await?;
    let listen = text(args, "listen");
    let listener = tokio::net::TcpListener::bind(listen).await.map_err(|e| format!("cannot listen on {listen}: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let settings = ApiSettings { rate_limit: args.get_one::<u32>("rate-limit").copied().unwrap_or(200) };
    println!("elo-ladder listening on http://{address} (database {})", text(args, "database"));
    let _ = std::io::stdout().flush();
    ranking_elo_ladder::serve(listener, store, settings).await.map_err(|e| e.to_string())
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
