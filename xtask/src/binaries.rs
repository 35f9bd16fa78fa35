//! Tests of the committed binaries of the Unity package (`cargo xtask test` runs them):
//!
//! * the C test program and the reference-vector replay (`tests/c/replay_vectors.c`) are
//!   compiled against each binary this machine can run and run there: Linux x86-64
//!   natively, Linux arm64 under `qemu-aarch64`, Windows under `wine64`, WebGL (the
//!   Emscripten static library, linked by `emcc`) under `node`; each must pass and print
//!   the same digest of its outputs as the freshly built host library;
//! * the exported `elo_` functions of every binary (ELF, PE, Mach-O, archives) are exactly
//!   the header's;
//! * the macOS library's code signature matches its bytes, and its install name and
//!   minimum versions are right.
//!
//! Only the small test programs are compiled here, never the libraries, so this stays fast.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::dist::{Kind, PLATFORMS};
use crate::root;
use crate::tools::{ensure, Counts, Step};

/// Debian packages the cross-platform runs need.
const PACKAGES: [&str; 8] = ["gcc-aarch64-linux-gnu", "libc6-dev-arm64-cross", "qemu-user", "gcc-mingw-w64-x86-64", "wine64", "emscripten", "nodejs", "llvm-22"];

/// The Wine loader (Debian installs it outside PATH).
const WINE: &str = "/usr/lib/wine/wine64";

fn ensure_tools() -> Result<(), String> {
    let hint = "install the cross compilers and runners (Debian: gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user gcc-mingw-w64-x86-64 wine64 emscripten nodejs llvm-22)";
    for program in ["aarch64-linux-gnu-gcc", "qemu-aarch64", "x86_64-w64-mingw32-gcc", "emcc", "node", "llvm-nm-22", "llvm-readobj-22", WINE] {
        ensure(program, &PACKAGES, hint)?;
    }
    Ok(())
}

/// Where a runnable binary is run from, and how.
struct Run {
    title: &'static str,
    /// Compiler for the test programs.
    cc: &'static str,
    /// Extra compiler arguments after the source (libraries).
    link: Vec<String>,
    /// Output file suffix.
    exe: &'static str,
    /// Runner program and its arguments before the executable (empty: run directly).
    runner: Vec<String>,
    /// Environment for the run.
    env: Vec<(String, String)>,
}

fn out_dir(name: &str) -> PathBuf {
    root().join("target/binaries").join(name)
}

fn plugin(folder: &str) -> PathBuf {
    PLATFORMS.iter().find(|p| p.folder == folder).map(crate::dist::Platform::path).expect("known platform")
}

fn runs(host_library: &Path) -> Result<Vec<Run>, String> {
    let linux = plugin("Linux/x86_64");
    let arm = plugin("Linux/arm64");
    let windows = plugin("Windows/x86_64");
    let webgl = plugin("WebGL");
    let dir = |p: &Path| p.parent().expect("plugin folder").display().to_string();
    // Windows: the DLL, the Wine stand-in for bcryptprimitives.dll and the programs share a
    // folder (Windows looks for DLLs beside the program first).
    let wine_dir = out_dir("windows");
    std::fs::create_dir_all(&wine_dir).map_err(|e| e.to_string())?;
    std::fs::copy(&windows, wine_dir.join("ranking_elo.dll")).map_err(|e| format!("copy the DLL: {e}"))?;
    Step::new("Wine stand-in for bcryptprimitives.dll (test only)", "x86_64-w64-mingw32-gcc")
        .args(["-shared", "-O2", "-o"])
        .arg(wine_dir.join("bcryptprimitives.dll"))
        .arg(root().join("tests/wine/bcryptprimitives.c"))
        .arg("-ladvapi32")
        .run()?;
    Ok(vec![
        Run {
            title: "host build",
            cc: "cc",
            link: vec![format!("-L{}", host_library.display()), "-lranking_elo".into(), "-lm".into()],
            exe: "",
            runner: vec![],
            env: vec![("LD_LIBRARY_PATH".into(), host_library.display().to_string())],
        },
        Run {
            title: "Linux x86_64 (committed .so)",
            cc: "cc",
            link: vec![format!("-L{}", dir(&linux)), "-lranking_elo".into(), "-lm".into()],
            exe: "",
            runner: vec![],
            env: vec![("LD_LIBRARY_PATH".into(), dir(&linux))],
        },
        Run {
            title: "Linux arm64 (committed .so, qemu-aarch64)",
            cc: "aarch64-linux-gnu-gcc",
            link: vec![format!("-L{}", dir(&arm)), "-lranking_elo".into(), "-lm".into()],
            exe: "",
            runner: vec!["qemu-aarch64".into(), "-L".into(), "/usr/aarch64-linux-gnu".into(), "-E".into(), format!("LD_LIBRARY_PATH={}", dir(&arm))],
            env: vec![],
        },
        Run {
            title: "Windows x86_64 (committed .dll, wine64)",
            cc: "x86_64-w64-mingw32-gcc",
            link: vec![wine_dir.join("ranking_elo.dll").display().to_string()],
            exe: ".exe",
            runner: vec![WINE.into()],
            env: vec![
                ("WINEPREFIX".into(), out_dir("wine-prefix").display().to_string()),
                ("WINEDEBUG".into(), "-all".into()),
                ("WINEDLLOVERRIDES".into(), "mscoree,mshtml=".into()),
            ],
        },
        Run {
            title: "WebGL (committed Emscripten library, node)",
            cc: "emcc",
            link: vec![
                webgl.display().to_string(),
                "-fwasm-exceptions".into(),
                "-sNODERAWFS=1".into(),
                "-sALLOW_MEMORY_GROWTH=1".into(),
                // -O2 would run Emscripten's JS optimizer, which needs node modules the
                // packaged Node.js does not see; the library itself is already optimized.
                "-O1".into(),
            ],
            exe: ".js",
            runner: vec!["node".into(), "--no-experimental-fetch".into()],
            env: vec![],
        },
    ])
}

/// Compiles and runs the C test and the vector replay against every runnable binary;
/// all must pass with the host build's digest.
pub fn run_all(host_library: &Path) -> Result<Counts, String> {
    ensure_tools()?;
    let mut counts = Counts::default();
    let vectors = root().join("unity/Tests/Runtime/Resources/RankingEloReferenceVectors.txt");
    let team_vectors = root().join("unity/Tests/Runtime/Resources/RankingEloTeamVectors.txt");
    let include = format!("-I{}", root().join("include").display());
    let strict = ["-std=c11", "-Wall", "-Wextra", "-Werror"];
    let mut digests: Vec<(String, String)> = Vec::new();
    for run in runs(host_library)? {
        let dir = out_dir(&run.title.replace([' ', '(', ')', ',', '.'], "_"));
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        for (program, source) in [("test_ranking_elo", "tests/c/test_ranking_elo.c"), ("replay_vectors", "tests/c/replay_vectors.c")] {
            let exe = if run.exe == ".exe" { out_dir("windows").join(format!("{program}.exe")) } else { dir.join(format!("{program}{}", run.exe)) };
            Step::new(&format!("{program} for {} (compile)", run.title), run.cc)
                .args(strict)
                .arg(&include)
                .arg(root().join(source))
                .args(&run.link)
                .arg("-o")
                .arg(&exe)
                .run()?;
            let mut command = if run.runner.is_empty() { Command::new(&exe) } else { Command::new(&run.runner[0]) };
            if !run.runner.is_empty() {
                command.args(&run.runner[1..]).arg(&exe);
            }
            if program == "replay_vectors" {
                command.arg(&vectors).arg(&team_vectors);
            }
            command.envs(run.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
            let title = format!("{program} on {}", run.title);
            println!("==> {title}");
            let output = command.output().map_err(|e| format!("{title}: cannot start: {e}"))?;
            let stdout = String::from_utf8_lossy(&output.stdout);
            let mut ran = Counts::default();
            for line in stdout.lines() {
                if line.starts_with("FAIL") || line.starts_with("digest") || line.starts_with("build") || line.contains(" passed, ") {
                    println!("    {line}");
                }
                ran.read_line(line);
            }
            if !output.status.success() || ran.total() == 0 {
                println!("{stdout}{}", String::from_utf8_lossy(&output.stderr));
                return Err(format!("{title} failed ({}; {} passed, {} failed)", output.status, ran.passed, ran.failed));
            }
            counts += ran;
            if let Some(digest) = stdout.lines().find_map(|l| l.strip_prefix("digest ")) {
                digests.push((run.title.to_owned(), digest.to_owned()));
            }
        }
    }
    let reference = digests.first().map(|(_, d)| d.clone()).unwrap_or_default();
    for (title, digest) in &digests {
        let same = *digest == reference;
        println!("    {title}: digest {digest} {}", if same { "(same bits as the host build)" } else { "DIFFERS from the host build" });
        counts += Counts { passed: u64::from(same), failed: u64::from(!same) };
    }
    counts += exports()?;
    counts += macos()?;
    Ok(counts)
}

/// The macOS library, which cannot run here: its arm64 slice's ad-hoc code signature
/// matches its bytes (`tests/macho_signature.py` recomputes every page hash, as the loader
/// does), both slices are there, the install name is `@rpath/…`, and the minimum macOS
/// versions are those of `dist.rs`.
fn macos() -> Result<Counts, String> {
    let path = plugin("macOS/universal");
    let mut counts = Counts::default();
    let signature = Command::new("python3").arg(root().join("tests/macho_signature.py")).arg(&path).output().map_err(|e| format!("python3: {e}"))?;
    let report = String::from_utf8_lossy(&signature.stdout);
    println!("    macOS signature: {}", report.trim().replace('\n', "; "));
    counts += Counts { passed: u64::from(signature.status.success()), failed: u64::from(!signature.status.success()) };
    let headers = Command::new("llvm-objdump-22").args(["--macho", "--private-headers", "--arch=all"]).arg(&path).output().map_err(|e| format!("llvm-objdump-22: {e}"))?;
    let text = String::from_utf8_lossy(&headers.stdout);
    for (what, needle) in [
        ("install name @rpath", "name @rpath/libranking_elo.dylib"),
        ("arm64 slice for macOS 11", "minos 11.0"),
        ("x86_64 slice for macOS 10.13", "version 10.13"),
    ] {
        let ok = text.contains(needle);
        println!("    macOS {what}: {}", if ok { "yes" } else { "NO" });
        counts += Counts { passed: u64::from(ok), failed: u64::from(!ok) };
    }
    Ok(counts)
}

/// The `elo_` functions the header declares.
fn header_functions() -> Result<BTreeSet<String>, String> {
    let header = std::fs::read_to_string(root().join("include/ranking_elo.h")).map_err(|e| e.to_string())?;
    Ok(header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('/') && !l.starts_with('#'))
        .filter_map(|l| {
            let before = l.split('(').next()?;
            let name = before.rsplit([' ', '*']).next()?;
            (name.starts_with("elo_") && l.contains('(')).then(|| name.to_owned())
        })
        .collect())
}

/// Checks that every binary exports exactly the header's `elo_` functions.
fn exports() -> Result<Counts, String> {
    let wanted = header_functions()?;
    if wanted.len() < 40 {
        return Err(format!("only {} functions found in the header", wanted.len()));
    }
    let mut counts = Counts::default();
    for platform in PLATFORMS {
        let path = platform.path();
        // A DLL: its export table; ELF shared libraries: the dynamic symbol table; Mach-O and
        // archives: the defined global symbols (every slice of a universal file).
        let (tool, args): (&str, Vec<&str>) = if platform.kind == Kind::MingwShared {
            ("llvm-readobj-22", vec!["--coff-exports"])
        } else if platform.kind == Kind::ZigShared && !platform.folder.starts_with("macOS") {
            ("llvm-nm-22", vec!["--defined-only", "--extern-only", "--just-symbol-name", "--dynamic"])
        } else {
            ("llvm-nm-22", vec!["--defined-only", "--extern-only", "--just-symbol-name"])
        };
        let output = Command::new(tool).args(&args).arg(&path).output().map_err(|e| format!("{tool}: {e}"))?;
        if !output.status.success() {
            return Err(format!("{tool} {}: {}", path.display(), String::from_utf8_lossy(&output.stderr)));
        }
        let found: BTreeSet<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| l.trim().trim_start_matches("Name: ").trim_start_matches('_').to_owned())
            .filter(|name| name.starts_with("elo_"))
            .collect();
        let missing: Vec<&String> = wanted.difference(&found).collect();
        let extra: Vec<&String> = found.difference(&wanted).collect();
        let ok = missing.is_empty() && extra.is_empty();
        println!("    exports of {}: {} elo_ functions{}", platform.folder, found.len(), if ok { ", as the header" } else { "" });
        if !ok {
            println!("    missing {missing:?}, not in the header {extra:?}");
        }
        counts += Counts { passed: u64::from(ok), failed: u64::from(!ok) };
    }
    Ok(counts)
}
