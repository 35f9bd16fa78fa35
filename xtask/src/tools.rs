//! Running commands, counting the tests they report, and installing missing tools.

use std::io::{BufRead, BufReader};
use std::ops::AddAssign;
use std::process::{Command, Stdio};
use std::sync::Once;

/// Tests passed and failed, summed over every runner.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
}

impl Counts {
    pub fn total(self) -> u64 {
        self.passed + self.failed
    }

    /// Reads one line of a runner's output: cargo's `test result: ok. 3 passed; 0 failed`,
    /// the plain `3 passed, 0 failed` of our C and C# programs, and NUnit 2's
    /// `Tests run: 5, Errors: 0, Failures: 0`.
    pub fn read_line(&mut self, line: &str) {
        let number_before = |word: &str| -> Option<u64> {
            let at = line.find(word)?;
            line[..at].trim_end().rsplit(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
        };
        let number_after = |word: &str| -> Option<u64> {
            let at = line.find(word)? + word.len();
            line[at..].trim_start().split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
        };
        let trimmed = line.trim_start();
        if trimmed.starts_with("test result:") || is_plain_summary(trimmed) {
            self.passed += number_before(" passed").unwrap_or(0);
            self.failed += number_before(" failed").unwrap_or(0);
        } else if trimmed.starts_with("Tests run:") {
            let run = number_after("Tests run:").unwrap_or(0);
            let bad = number_after("Errors:").unwrap_or(0) + number_after("Failures:").unwrap_or(0);
            let skipped = number_after("Not Run:").unwrap_or(0);
            self.passed += run.saturating_sub(bad + skipped);
            self.failed += bad;
        }
    }
}

/// `N passed, N failed` alone on a line.
fn is_plain_summary(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    words.len() == 4 && words[0].parse::<u64>().is_ok() && words[1] == "passed," && words[2].parse::<u64>().is_ok() && words[3] == "failed"
}

impl AddAssign for Counts {
    fn add_assign(&mut self, other: Self) {
        self.passed += other.passed;
        self.failed += other.failed;
    }
}

/// One command of a task, announced before it runs.
pub struct Step {
    title: String,
    command: Command,
    quiet: bool,
}

impl Step {
    pub fn new(title: &str, program: impl AsRef<std::ffi::OsStr>) -> Self {
        let mut command = Command::new(program);
        command.current_dir(root());
        Self { title: title.to_owned(), command, quiet: false }
    }

    /// Does not announce the step (one of many small ones); a failure still names it.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// Runs the command in `dir` instead of the repository root.
    pub fn current_dir(mut self, dir: &std::path::Path) -> Self {
        self.command.current_dir(dir);
        self
    }

    pub fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.arg(arg);
        self
    }

    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        self.command.args(args);
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.command.env(key, value);
        self
    }

    pub fn envs<'a>(mut self, vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        self.command.envs(vars);
        self
    }

    /// Runs the command, streaming its output; fails on a non-zero exit.
    pub fn run(mut self) -> Result<(), String> {
        if !self.quiet {
            println!("==> {}", self.title);
        }
        let status = self.command.status().map_err(|e| format!("{}: cannot start: {e}", self.title))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{} failed ({status})", self.title))
        }
    }

    /// Runs the command, streaming its output and counting the tests it reports. A run
    /// that reports no test at all is an error (a test step must test something).
    pub fn run_counted(mut self) -> Result<Counts, String> {
        println!("==> {}", self.title);
        let mut child = self.command.stdout(Stdio::piped()).spawn().map_err(|e| format!("{}: cannot start: {e}", self.title))?;
        let mut counts = Counts::default();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                println!("{line}");
                counts.read_line(&line);
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        if !status.success() {
            return Err(format!("{} failed ({status}; {} passed, {} failed)", self.title, counts.passed, counts.failed));
        }
        if counts.total() == 0 {
            return Err(format!("{} ran no test", self.title));
        }
        Ok(counts)
    }
}

/// Whether `program` can be found on PATH.
pub fn has(program: &str) -> bool {
    Command::new(program).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// The repository root (the parent of the xtask crate).
pub fn root() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the repository").to_path_buf()
}

/// Installs Debian packages when a tool is missing (Debian/Ubuntu as root), otherwise
/// explains what to install.
pub fn ensure(program: &str, packages: &[&str], hint: &str) -> Result<(), String> {
    ensure_that(&format!("`{program}`"), || has(program), packages, hint)
}

/// [`ensure`] for a file rather than a program (a library another tool loads).
pub fn ensure_file(path: &str, packages: &[&str], hint: &str) -> Result<(), String> {
    ensure_that(path, || std::path::Path::new(path).is_file(), packages, hint)
}

/// Installs Debian packages when `present` says something (`what`) is missing.
pub fn ensure_that(what: &str, present: impl Fn() -> bool, packages: &[&str], hint: &str) -> Result<(), String> {
    if present() {
        return Ok(());
    }
    let can_apt = cfg!(target_os = "linux") && has("apt-get") && is_root();
    if !can_apt {
        return Err(format!("{what} is missing: {hint}"));
    }
    static UPDATE: Once = Once::new();
    UPDATE.call_once(|| {
        let _ = Step::new("apt-get update", "apt-get").args(["update", "-q"]).run();
    });
    Step::new(&format!("install {}", packages.join(" ")), "apt-get")
        .args(["install", "-y", "-q", "--no-install-recommends"])
        .args(packages)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .run()?;
    if present() {
        Ok(())
    } else {
        Err(format!("{what} is still missing after installing {}", packages.join(" ")))
    }
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|out| String::from_utf8_lossy(&out.stdout).trim() == "0").unwrap_or(false)
}

/// `cargo fmt` and `cargo clippy` for the convention checks: rustup's components when the
/// toolchain lacks them (a minimal rustup profile has neither).
pub fn ensure_rustfmt_and_clippy() -> Result<(), String> {
    let works = |args: &[&str]| Command::new("cargo").args(args).output().is_ok_and(|out| out.status.success());
    if works(&["fmt", "--version"]) && works(&["clippy", "--version"]) {
        return Ok(());
    }
    if !has("rustup") {
        return Err("cargo fmt and cargo clippy are missing: install the rustfmt and clippy components of your Rust toolchain".to_owned());
    }
    Step::new("rustup component add rustfmt clippy", "rustup").args(["component", "add", "rustfmt", "clippy"]).run()
}

/// A C compiler for the C ABI test.
pub fn ensure_c_compiler() -> Result<(), String> {
    ensure("cc", &["gcc", "libc6-dev"], "install a C compiler (gcc or clang) as `cc`")
}
