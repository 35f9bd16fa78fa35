//! The harness of the binary tests, shared by every platform's runner (`binaries`, `apple`,
//! `browser`) and the checks (`symbols`, `mono`): what a runnable platform is, one run's
//! outcome, where runs keep their files, and how a check's verdict is printed and counted.
//! A leaf module: it imports no other test module.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::platforms::{Platform, PLATFORMS};
use crate::tools::{root, Counts};

/// The outcome of one program run.
pub struct Execution {
    /// The program exited with status 0.
    pub success: bool,
    /// What it printed.
    pub stdout: String,
    /// What it printed on standard error.
    pub stderr: String,
}

/// A platform whose binary runs here: it builds and runs the two C programs against it.
pub trait Runnable {
    /// The platform and how it runs, in words.
    fn title(&self) -> String;
    /// Runs `program` (`test_ranking_elo` or `replay_vectors`) with `args` (files).
    fn execute(&self, program: &str, args: &[PathBuf]) -> Result<Execution, String>;
}

/// The source of a program.
pub fn source(program: &str) -> PathBuf {
    root().join("tests/fixtures/c").join(format!("{program}.c"))
}

/// Warnings are errors for the test programs on every compiler.
pub const STRICT: [&str; 4] = ["-std=c11", "-Wall", "-Wextra", "-Werror"];

/// Where the runs of `name` keep their files.
pub fn out_dir(name: &str) -> PathBuf {
    root().join("target/binaries").join(name.replace([' ', '(', ')', ',', '.', '/'], "_"))
}

/// The committed binary of a package folder.
pub fn plugin(folder: &str) -> PathBuf {
    PLATFORMS.iter().find(|p| p.folder == folder).map(Platform::path).expect("known platform")
}

/// One check's outcome, printed and counted.
pub fn verdict(what: &str, ok: bool, detail: &str) -> Counts {
    println!("    {what}: {}{}", if ok { "yes" } else { "NO" }, if detail.is_empty() { String::new() } else { format!(" ({detail})") });
    Counts { passed: u64::from(ok), failed: u64::from(!ok) }
}

/// Output of a tool, which must succeed.
pub fn tool_output(program: &str, args: &[&str], path: &Path) -> Result<String, String> {
    let output = Command::new(program).args(args).arg(path).output().map_err(|e| format!("{program}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{program} {}: {}", path.display(), String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
