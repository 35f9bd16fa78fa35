//! The `--database` URL: `sqlite://PATH[?synchronous=full|normal]` or a PostgreSQL URL with
//! libpq's TLS modes (`sslmode=disable|prefer|require|verify-ca|verify-full`,
//! `sslrootcert=PATH|system`) and the password from the URL, `PGPASSWORD` or a file. The
//! URL is shown only with its password hidden ([`DatabaseUrl::redacted`]).

use std::path::PathBuf;

/// Connections one server process keeps at most, unless configured.
pub const DEFAULT_MAX_CONNECTIONS: usize = 32;

/// Committer tasks per server process, unless configured (`--committers`).
pub const DEFAULT_COMMITTERS: usize = 2;

/// SQLite: players per writer transaction of a season end or decay, and journal entries (and
/// players) per writer transaction of an annulment's or correction's rebuild (`event_step`).
/// A ladder with more players has its event applied in steps, and every amendment is, so
/// that other ladders' writes go on between them and none waits for more than one step.
pub const DEFAULT_EVENT_STEP: usize = 2_500;

/// The largest `event_step` accepted.
pub const MAX_EVENT_STEP: usize = 10_000_000;

/// How the connection to PostgreSQL is protected (libpq's `sslmode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    /// Plain text only.
    Disable,
    /// TLS when the server offers it, else plain text (libpq's default; the server logs a
    /// warning when it ends up unencrypted).
    Prefer,
    /// TLS; the certificate is not checked unless `sslrootcert` is given (then as
    /// `verify-ca`), as in libpq.
    Require,
    /// TLS with the certificate chain verified against `sslrootcert` (or the system's
    /// roots); the host name is not checked.
    VerifyCa,
    /// TLS with the chain and the host name verified.
    VerifyFull,
}

impl TlsMode {
    fn parse(text: &str) -> Result<Self, String> {
        Ok(match text {
            "disable" => Self::Disable,
            "allow" | "prefer" => Self::Prefer,
            "require" => Self::Require,
            "verify-ca" => Self::VerifyCa,
            "verify-full" => Self::VerifyFull,
            other => return Err(format!("sslmode={other} is not one of disable, prefer, require, verify-ca, verify-full")),
        })
    }

    /// libpq's name.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }
}

/// Where the CA certificates for `verify-ca` / `verify-full` come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootCerts {
    /// The operating system's trusted roots (`sslrootcert=system`, and the default).
    System,
    /// A PEM file.
    File(PathBuf),
}

/// A PostgreSQL connection: tokio-postgres' settings and the TLS policy.
#[derive(Clone)]
pub struct PgSettings {
    /// Host, port, user, password, database and options (TLS settings removed).
    pub config: tokio_postgres::Config,
    /// `sslmode`.
    pub tls: TlsMode,
    /// `sslrootcert`, when given.
    pub root_certs: Option<RootCerts>,
    /// The URL with the password hidden.
    pub redacted: String,
    /// Connections one server process keeps at most.
    pub max_connections: usize,
    /// Committer tasks (transactions of match reports in flight at once) per process.
    pub committers: usize,
}

impl std::fmt::Debug for PgSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.redacted)
    }
}

/// A parsed `--database`.
#[derive(Debug, Clone)]
pub enum DatabaseUrl {
    /// A SQLite file and whether commits wait for the disk (`synchronous=FULL`).
    Sqlite {
        /// The file.
        path: String,
        /// `FULL` (default) or `NORMAL`.
        full_sync: bool,
        /// Players per writer transaction of a season end or decay of a larger ladder
        /// (`event_step=N`, [`DEFAULT_EVENT_STEP`] by default).
        event_step: usize,
    },
    /// PostgreSQL.
    Postgres(Box<PgSettings>),
}

/// Where a PostgreSQL password may come from besides the URL.
#[derive(Debug, Clone, Default)]
pub struct PasswordSources {
    /// `PGPASSWORD`'s value.
    pub env: Option<String>,
    /// A file holding the password (its first line).
    pub file: Option<PathBuf>,
}

impl PasswordSources {
    /// `PGPASSWORD` from the environment and `file`.
    #[must_use]
    pub fn from_env(file: Option<PathBuf>) -> Self {
        Self { env: std::env::var("PGPASSWORD").ok().filter(|p| !p.is_empty()), file }
    }
}

impl DatabaseUrl {
    /// Parses a database URL without outside passwords.
    ///
    /// # Errors
    /// As [`Self::parse_with`].
    pub fn parse(url: &str) -> Result<Self, String> {
        Self::parse_with(url, &PasswordSources::default())
    }

    /// Parses a database URL; a PostgreSQL URL without a password takes it from the file,
    /// else from `PGPASSWORD`.
    ///
    /// # Errors
    /// Anything but `sqlite://PATH[?synchronous=full|normal]` or a valid `postgres://…` /
    /// `postgresql://…` (messages never show a password).
    pub fn parse_with(url: &str, passwords: &PasswordSources) -> Result<Self, String> {
        if let Some(rest) = url.strip_prefix("sqlite://") {
            let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
            if path.is_empty() {
                return Err(format!("{url}: sqlite://PATH needs a file path"));
            }
            let (mut full_sync, mut event_step) = (true, DEFAULT_EVENT_STEP);
            for option in query.split('&').filter(|o| !o.is_empty()) {
                match option.split_once('=') {
                    Some(("synchronous", "full")) => full_sync = true,
                    Some(("synchronous", "normal")) => full_sync = false,
                    Some(("event_step", n)) => {
                        event_step = n
                            .parse()
                            .ok()
                            .filter(|n| (1..=MAX_EVENT_STEP).contains(n))
                            .ok_or_else(|| format!("{url}: event_step={n} is not a number of players from 1 to {MAX_EVENT_STEP}"))?;
                    }
                    _ => return Err(format!("{url}: unknown option {option:?} (sqlite://PATH?synchronous=full|normal&event_step=PLAYERS)")),
                }
            }
            Ok(Self::Sqlite { path: path.to_owned(), full_sync, event_step })
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            parse_postgres(url, passwords).map(|settings| Self::Postgres(Box::new(settings)))
        } else {
            Err(format!("{}: the database is sqlite://PATH or postgres://USER@HOST/NAME", redact_text(url)))
        }
    }

    /// The URL as it may be printed (password hidden).
    #[must_use]
    pub fn redacted(&self) -> String {
        match self {
            Self::Sqlite { path, full_sync, event_step } => {
                let mut options = Vec::new();
                if !*full_sync {
                    options.push("synchronous=normal".to_owned());
                }
                if *event_step != DEFAULT_EVENT_STEP {
                    options.push(format!("event_step={event_step}"));
                }
                if options.is_empty() {
                    format!("sqlite://{path}")
                } else {
                    format!("sqlite://{path}?{}", options.join("&"))
                }
            }
            Self::Postgres(settings) => settings.redacted.clone(),
        }
    }
}

/// `postgres://user:secret@host/db` with the secret replaced by `***` (for messages about
/// a URL that could not be parsed).
#[must_use]
pub fn redact_text(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.split_once('/').map_or((rest, None), |(a, t)| (a, Some(t)));
    let authority = match authority.rsplit_once('@') {
        Some((credentials, host)) => match credentials.split_once(':') {
            Some((user, _)) => format!("{user}:***@{host}"),
            None => format!("{credentials}@{host}"),
        },
        None => authority.to_owned(),
    };
    let tail = tail.map(|t| {
        let (path, query) = t.split_once('?').unwrap_or((t, ""));
        let query: Vec<String> = query.split('&').filter(|p| !p.is_empty()).map(|p| if p.starts_with("password=") { "password=***".to_owned() } else { p.to_owned() }).collect();
        if query.is_empty() {
            format!("/{path}")
        } else {
            format!("/{path}?{}", query.join("&"))
        }
    });
    format!("{scheme}://{authority}{}", tail.unwrap_or_default())
}

fn parse_postgres(url: &str, passwords: &PasswordSources) -> Result<PgSettings, String> {
    let shown = redact_text(url);
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let mut tls = TlsMode::Prefer;
    let mut root_certs = None;
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        match name {
            "sslmode" => tls = TlsMode::parse(value).map_err(|e| format!("{shown}: {e}"))?,
            "sslrootcert" if value == "system" => root_certs = Some(RootCerts::System),
            "sslrootcert" => root_certs = Some(RootCerts::File(PathBuf::from(percent_decode(value)))),
            "sslcert" | "sslkey" | "sslpassword" | "sslcrl" => {
                return Err(format!("{shown}: {name} (client certificates) is not supported; use a password"));
            }
            _ => kept.push(pair),
        }
    }
    let rebuilt = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    let mut config: tokio_postgres::Config = rebuilt.parse().map_err(|e| format!("{shown}: {e}"))?;
    if config.get_password().is_none() {
        if let Some(file) = &passwords.file {
            let text = std::fs::read_to_string(file).map_err(|e| format!("password file {}: {e}", file.display()))?;
            let password = text.lines().next().unwrap_or("").to_owned();
            if password.is_empty() {
                return Err(format!("password file {} is empty", file.display()));
            }
            config.password(password);
        } else if let Some(password) = &passwords.env {
            config.password(password.clone());
        }
    }
    if config.get_application_name().is_none() {
        config.application_name("elo-ladder");
    }
    config.ssl_mode(match tls {
        TlsMode::Disable => tokio_postgres::config::SslMode::Disable,
        TlsMode::Prefer => tokio_postgres::config::SslMode::Prefer,
        TlsMode::Require | TlsMode::VerifyCa | TlsMode::VerifyFull => tokio_postgres::config::SslMode::Require,
    });
    if tls == TlsMode::Require && matches!(root_certs, Some(RootCerts::File(_))) {
        // libpq: require with a root certificate file verifies the chain.
        tls = TlsMode::VerifyCa;
    }
    let redacted = describe(&config, tls, root_certs.as_ref());
    Ok(PgSettings { config, tls, root_certs, redacted, max_connections: DEFAULT_MAX_CONNECTIONS, committers: DEFAULT_COMMITTERS })
}

/// `postgres://user@host:port/db?sslmode=…`: what a log may show.
fn describe(config: &tokio_postgres::Config, tls: TlsMode, root: Option<&RootCerts>) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .zip(config.get_ports().iter().chain(std::iter::repeat(&5432)))
        .map(|(host, port)| match host {
            tokio_postgres::config::Host::Tcp(name) => format!("{name}:{port}"),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(path) => format!("{}:{port}", path.display()),
        })
        .collect();
    let user = config.get_user().unwrap_or("");
    let password = if config.get_password().is_some() { ":***" } else { "" };
    let db = config.get_dbname().unwrap_or("");
    let root = match root {
        Some(RootCerts::System) => "&sslrootcert=system".to_owned(),
        Some(RootCerts::File(path)) => format!("&sslrootcert={}", path.display()),
        None => String::new(),
    };
    format!("postgres://{user}{password}@{}/{db}?sslmode={}{root}", hosts.join(","), tls.as_str())
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_options() {
        let options = |url: &str| match DatabaseUrl::parse(url).unwrap() {
            DatabaseUrl::Sqlite { path, full_sync, event_step } => (path, full_sync, event_step),
            DatabaseUrl::Postgres(_) => unreachable!(),
        };
        assert_eq!(options("sqlite://l.db"), ("l.db".to_owned(), true, DEFAULT_EVENT_STEP));
        assert_eq!(options("sqlite://l.db?synchronous=normal&event_step=500"), ("l.db".to_owned(), false, 500));
        assert_eq!(options("sqlite://l.db?event_step=7&synchronous=full"), ("l.db".to_owned(), true, 7));
        assert_eq!(DatabaseUrl::parse("sqlite://l.db?event_step=7&synchronous=normal").unwrap().redacted(), "sqlite://l.db?synchronous=normal&event_step=7");
        assert_eq!(DatabaseUrl::parse("sqlite://l.db?synchronous=full").unwrap().redacted(), "sqlite://l.db");
        for bad in ["sqlite://l.db?event_step=0", "sqlite://l.db?event_step=x", "sqlite://l.db?event_step=10000001", "sqlite://l.db?sync=1", "sqlite://l.db?synchronous=off"] {
            assert!(DatabaseUrl::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn passwords_are_never_shown() {
        let url = "postgres://ladder:s3cret@db.example:6543/elo?sslmode=verify-full&sslrootcert=/etc/ca.pem";
        let parsed = DatabaseUrl::parse(url).unwrap();
        let shown = parsed.redacted();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!(shown, "postgres://ladder:***@db.example:6543/elo?sslmode=verify-full&sslrootcert=/etc/ca.pem");
        assert_eq!(redact_text("postgres://u:pw@h/db?password=pw2&x=1"), "postgres://u:***@h/db?password=***&x=1");
        let bad = DatabaseUrl::parse("postgres://u:topsecret@h/db?sslmode=nope").unwrap_err();
        assert!(!bad.contains("topsecret") && bad.contains("sslmode=nope"), "{bad}");
    }

    #[test]
    fn passwords_come_from_a_file_or_the_environment() {
        let dir = std::env::temp_dir().join(format!("elo-ladder-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pw");
        std::fs::write(&file, "from-file\n").unwrap();
        let sources = PasswordSources { env: Some("from-env".into()), file: Some(file) };
        let DatabaseUrl::Postgres(settings) = DatabaseUrl::parse_with("postgres://u@h/db", &sources).unwrap() else { panic!() };
        assert_eq!(settings.config.get_password(), Some(&b"from-file"[..]));
        let env_only = PasswordSources { env: Some("from-env".into()), file: None };
        let DatabaseUrl::Postgres(settings) = DatabaseUrl::parse_with("postgres://u@h/db", &env_only).unwrap() else { panic!() };
        assert_eq!(settings.config.get_password(), Some(&b"from-env"[..]));
        let DatabaseUrl::Postgres(settings) = DatabaseUrl::parse_with("postgres://u:inurl@h/db", &env_only).unwrap() else { panic!() };
        assert_eq!(settings.config.get_password(), Some(&b"inurl"[..]));
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn tls_modes_follow_libpq() {
        let mode = |url: &str| match DatabaseUrl::parse(url).unwrap() {
            DatabaseUrl::Postgres(s) => s.tls,
            DatabaseUrl::Sqlite { .. } => unreachable!(),
        };
        assert_eq!(mode("postgres://u@h/db"), TlsMode::Prefer);
        assert_eq!(mode("postgres://u@h/db?sslmode=require"), TlsMode::Require);
        assert_eq!(mode("postgres://u@h/db?sslmode=require&sslrootcert=/ca.pem"), TlsMode::VerifyCa);
        assert_eq!(mode("postgresql://u@h/db?sslmode=verify-full&connect_timeout=5"), TlsMode::VerifyFull);
        assert!(DatabaseUrl::parse("postgres://u@h/db?sslcert=/c.pem").is_err());
    }
}
