//! `cargo xtask`: the project's build tool, in Rust so that it runs the same on Windows,
//! macOS and Linux (no shell scripts).
//!
//! * `cargo xtask demo`: build the release library, stage it into the Unity package's
//!   plugin folder for this machine, and run the console demo on Mono.
//! * `cargo xtask test`: every test: Rust (unit, property, C ABI, generated files, the
//!   committed binaries' build id), the C program against the header (shared and static
//!   library), the C program and the reference vectors against the Unity package's
//!   committed binaries for Linux x86-64 and arm64 (qemu), Windows (wine) and WebGL (node),
//!   their exports, the C# wrapper's NUnit suite on Mono, the Unity package checker, and
//!   every C# and C snippet of the documentation (compiled; the programs run: `snippets.rs`).
//! * `cargo xtask test-binaries`: only the checks of the committed binaries (part of `test`).
//! * `cargo xtask test-csharp`: only the C# checks (part of `test`).
//! * `cargo xtask test-docs`: only the documentation's snippets (part of `test`).
//! * `cargo xtask dist`: build every platform's binary into the Unity package
//!   (`unity/Runtime/Plugins`) and the UPM tarball (`target/dist`); see `dist.rs`.
//! * `cargo xtask fuzz [--seconds N] [target…]`: run the fuzz targets (`fuzz/`, nightly)
//!   for a bounded time each and keep their corpus; see `fuzz.rs`.
//! * `cargo xtask stage`: build and stage the library only.
//! * `cargo xtask bench-mono`: the C# benchmark on Mono (managed tutorial code, one
//!   P/Invoke per pair, the batch API).
//! * `cargo xtask bench-ladder`: the ladder server's load benchmark (`ladder.rs`).
//! * `cargo xtask notices`: writes the Unity package's `Third Party Notices.md` (`notices.rs`).
//! * `cargo xtask package-docs`: copies the reference pages of `docs/` into the Unity package's
//!   `Documentation~/reference/` (`package_docs.rs`); the tests check the copies are current.
//!
//! Missing tools (a C compiler, Mono, NUnit) are installed with `apt-get` on Debian and
//! Ubuntu when running as root; elsewhere the command says what to install.

mod android;
mod apple;
mod archive;
mod binaries;
mod bionic;
mod browser;
mod dist;
mod fuzz;
mod harness;
mod header;
mod image;
mod ladder;
mod mono;
mod notices;
mod package_docs;
mod platforms;
mod plugin_meta;
mod snippets;
mod symbols;
mod tools;
mod wasm_object;

use std::path::PathBuf;
use std::process::ExitCode;

use tools::{root, Counts, Step};

fn main() -> ExitCode {
    let command = std::env::args().nth(1).unwrap_or_default();
    let result = match command.as_str() {
        "test" => test(),
        "demo" => demo(),
        "stage" => stage().map(|_| Counts::default()),
        "test-binaries" => test_binaries(),
        "test-csharp" => test_csharp(),
        "test-docs" => test_docs(),
        "fuzz" => {
            let args: Vec<String> = std::env::args().skip(2).collect();
            fuzz::fuzz(&args).map(|()| Counts::default())
        }
        "dist" => {
            let only: Vec<String> = std::env::args().skip(2).collect();
            dist::dist(&only).map(|()| Counts::default())
        }
        "bench-mono" => bench_mono(),
        "notices" => notices::write().map(|()| Counts::default()),
        "package-docs" => package_docs::write().map(|()| Counts::default()),
        "image" => image::image(),
        "bench-ladder" => ladder::bench(&std::env::args().skip(2).collect::<Vec<_>>()).map(|()| Counts::default()),
        _ => {
            eprintln!("usage: cargo xtask <test | test-binaries | test-csharp | test-docs | demo | stage | dist [platform…] | fuzz [--seconds N] [target…] | bench-mono | bench-ladder | notices | package-docs>");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(counts) => {
            if counts.total() > 0 {
                println!("xtask: {} passed, {} failed", counts.passed, counts.failed);
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("xtask: error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The Cargo arguments of the test suites' profile, `release-tests`: the release
/// optimizations without whole-program LTO, which costs about 50 s per test binary and most
/// of a fresh CI run. Defined here rather than in Cargo.toml, whose every byte is part of
/// the plugin's build id. The shipped profile is still tested: the C tests, the vector
/// replays and the committed binaries are `release` builds, and both profiles must reproduce
/// the same reference vectors bit for bit.
pub const TEST_PROFILE: [&str; 8] = [
    "--config",
    "profile.release-tests.inherits=\"release\"",
    "--config",
    "profile.release-tests.lto=false",
    "--config",
    "profile.release-tests.codegen-units=16",
    "--profile",
    "release-tests",
];

fn test() -> Result<Counts, String> {
    tools::ensure_c_compiler()?;
    // The conventions first (seconds when the tree is clean): the tree as rustfmt.toml
    // formats it, and no clippy warning (the crates' lint levels say which lints count).
    tools::ensure_rustfmt_and_clippy()?;
    Step::new("cargo fmt --check", "cargo").args(["fmt", "--all", "--", "--check"]).run()?;
    Step::new("cargo fmt --check (fuzz targets)", "cargo").args(["fmt", "--", "--check"]).current_dir(&root().join("fuzz")).run()?;
    Step::new("cargo clippy -D warnings", "cargo").args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]).run()?;
    // Its ~5-minute build overlaps the Rust tests; the Apple checks wait for it.
    apple::prefetch_rcodesign();
    // The ladder server's suite (in the Rust tests) starts a private PostgreSQL cluster.
    ladder::ensure_postgres()?;
    let mut counts = package_docs::check()?;
    // Generated files are checked, not refreshed, during tests.
    let frozen = [("RANKING_ELO_FREEZE_GENERATED", "1")];
    counts += Step::new("Rust tests", "cargo").args(["test", "--workspace"]).args(TEST_PROFILE).envs(frozen).run_counted()?;
    // The benchmarks are not run here (speed is not asserted in tests), but they must build.
    Step::new("benchmarks compile", "cargo").args(["check", "--benches", "--package", "ranking-elo"]).envs(frozen).run()?;
    let library = build_release(&frozen)?;
    counts += c_tests(&library)?;
    counts += binaries::run_all(&library)?;
    counts += csharp(&library)?;
    // The ladder server's container image: built with podman, its binary run from the
    // image's own filesystem (image.rs).
    counts += image::image()?;
    if counts.failed > 0 {
        return Err(format!("{} test(s) failed", counts.failed));
    }
    Ok(counts)
}

/// The C# side: the NUnit suite on Mono (shared library, `__Internal`, full AOT), the
/// Unity-only code compiled against the stand-ins, and the documentation's snippets.
fn csharp(library: &std::path::Path) -> Result<Counts, String> {
    mono::ensure_mono()?;
    let runtime = mono::build_runtime()?;
    mono::copy_native(library)?;
    // The LadderClient tests talk to a real elo-ladder (every run of the suite below).
    let ladder_server = ladder::start_for_client_tests()?;
    let mut counts = mono::nunit_tests(&runtime)?;
    counts += mono::internal_and_full_aot(library)?;
    counts += mono::load_failures(&runtime, library)?;
    counts += mono::unity_flavour_programs()?;
    counts += mono::unity_editor_programs()?;
    drop(ladder_server);
    mono::unity_compile_check()?;
    // Every C# and C snippet of the documentation compiles, against the package built by the
    // manual's own command; the programs run (snippets.rs).
    counts += snippets::check(library)?;
    Ok(counts)
}

/// Only the C# checks (a part of `test`).
fn test_csharp() -> Result<Counts, String> {
    tools::ensure_c_compiler()?;
    let library = build_release(&[("RANKING_ELO_FREEZE_GENERATED", "1")])?;
    let counts = csharp(&library)?;
    if counts.failed > 0 {
        return Err(format!("{} check(s) failed", counts.failed));
    }
    Ok(counts)
}

/// Only the checks of the committed binaries (a part of `test`): after `cargo xtask dist`.
fn test_binaries() -> Result<Counts, String> {
    tools::ensure_c_compiler()?;
    let library = build_release(&[("RANKING_ELO_FREEZE_GENERATED", "1")])?;
    let counts = binaries::run_all(&library)?;
    if counts.failed > 0 {
        return Err(format!("{} check(s) failed", counts.failed));
    }
    Ok(counts)
}

/// Only the documentation's snippets (a part of `test`): after editing the docs.
fn test_docs() -> Result<Counts, String> {
    tools::ensure_c_compiler()?;
    mono::ensure_mono()?;
    let library = build_release(&[("RANKING_ELO_FREEZE_GENERATED", "1")])?;
    let mut counts = package_docs::check()?;
    counts += snippets::check(&library)?;
    Ok(counts)
}

fn demo() -> Result<Counts, String> {
    mono::ensure_mono()?;
    let plugin_dir = stage()?;
    let runtime = mono::build_runtime()?;
    mono::run_demo(&runtime, &plugin_dir)?;
    Ok(Counts::default())
}

/// The C# benchmark on Mono (release library, optimized assemblies).
fn bench_mono() -> Result<Counts, String> {
    mono::ensure_mono()?;
    let library = build_release(&[])?;
    let runtime = mono::build_runtime()?;
    mono::run_benchmark(&runtime, &library)?;
    Ok(Counts::default())
}

/// Builds the plugin for this machine into the Unity package's plugin folder; returns that
/// folder. On Linux x86-64 it uses the shipping recipe (`cargo xtask dist Linux/x86_64`:
/// the same pinned toolchain and glibc floor), which reproduces the committed binary bit for
/// bit when the source has not changed, so staging never leaves a different binary in the
/// package; elsewhere it copies this machine's release build.
fn stage() -> Result<PathBuf, String> {
    let folder = host_plugin_folder()?;
    if folder == "Linux/x86_64" {
        dist::dist(&[folder.to_owned()])?;
        println!("==> staged unity/Runtime/Plugins/{folder} (the shipping build)");
        return Ok(root().join("unity/Runtime/Plugins").join(folder));
    }
    let library = build_release(&[])?;
    let plugin_dir = root().join("unity/Runtime/Plugins").join(folder);
    std::fs::create_dir_all(&plugin_dir).map_err(|e| e.to_string())?;
    let name = mono::native_name();
    std::fs::copy(library.join(name), plugin_dir.join(name)).map_err(|e| format!("stage {name}: {e}"))?;
    println!("==> staged {} into unity/Runtime/Plugins/{folder}", name);
    Ok(plugin_dir)
}

/// The package's plugin folder for the machine this runs on.
fn host_plugin_folder() -> Result<&'static str, String> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Ok("Linux/x86_64"),
        ("windows", "x86_64") => Ok("Windows/x86_64"),
        ("macos", _) => Ok("macOS/universal"),
        (os, arch) => Err(format!("no Unity plugin folder for {os}/{arch}")),
    }
}

/// Builds the release library and returns the target folder holding it.
fn build_release(envs: &[(&str, &str)]) -> Result<PathBuf, String> {
    Step::new("release build", "cargo").args(["build", "--release", "--package", "ranking-elo"]).envs(envs.iter().copied()).run()?;
    Ok(root().join("target").join("release"))
}

/// Compiles `tests/fixtures/c/test_ranking_elo.c` with strict warnings against the generated
/// header, links it once to the shared and once to the static library, and runs both.
fn c_tests(library: &std::path::Path) -> Result<Counts, String> {
    let root = root();
    let source = root.join("tests/fixtures/c/test_ranking_elo.c");
    let out_dir = root.join("target/c-tests");
    std::fs::create_dir_all(&out_dir).map_err(|e| e.to_string())?;
    let strict = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"];
    let include = format!("-I{}", root.join("include").display());
    let mut counts = Counts::default();

    let shared = out_dir.join("test_ranking_elo_shared");
    Step::new("C test (compile, shared library)", "cc")
        .args(strict)
        .arg(&include)
        .arg(source.display().to_string())
        .arg(format!("-L{}", library.display()))
        .args(["-lranking_elo", "-lm", "-o"])
        .arg(shared.display().to_string())
        .run()?;
    counts += Step::new("C test (shared library)", shared.display().to_string()).env("LD_LIBRARY_PATH", library.display().to_string()).run_counted()?;
    // The same program under valgrind: no invalid access, no definite leak.
    tools::ensure("valgrind", &["valgrind"], "install valgrind")?;
    counts += Step::new("C test under valgrind (memcheck)", "valgrind")
        .args(["-q", "--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite"])
        .arg(shared.display().to_string())
        .env("LD_LIBRARY_PATH", library.display().to_string())
        .run_counted()?;

    let static_exe = out_dir.join("test_ranking_elo_static");
    Step::new("C test (compile, static library)", "cc")
        .args(strict)
        .arg(&include)
        .arg(source.display().to_string())
        .arg(library.join("libranking_elo.a").display().to_string())
        .args(["-lm", "-lpthread", "-ldl", "-o"])
        .arg(static_exe.display().to_string())
        .run()?;
    counts += Step::new("C test (static library)", static_exe.display().to_string()).run_counted()?;
    Ok(counts)
}
