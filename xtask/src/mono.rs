//! The C# side on Mono: compile the Unity package's wrapper and tests with `mcs`, run the
//! NUnit suite with `nunit-console`, compile the Unity-only code paths and the sample
//! against a UnityEngine stand-in, and run the console demo.

use std::path::{Path, PathBuf};

use crate::root;
use crate::tools::{ensure, Counts, Step};

/// The Mono tools: compiler, runtime, NUnit 2 console and framework.
pub fn ensure_mono() -> Result<(), String> {
    let packages = ["mono-mcs", "mono-runtime", "nunit-console", "libnunit-cil-dev", "libmono-system-net-http4.0-cil"];
    let hint = "install Mono (https://www.mono-project.com) with mcs and NUnit 2.6 (nunit-console)";
    ensure("mcs", &packages, hint)?;
    ensure("mono", &packages, hint)?;
    ensure("nunit-console", &packages, hint)?;
    // HttpClient (the ladder client outside Unity) is a separate Debian package.
    if cfg!(target_os = "linux") {
        crate::tools::ensure_file("/usr/lib/mono/4.5/System.Net.Http.dll", &packages, hint)?;
    }
    nunit_framework().map(|_| ())
}

/// Where `nunit.framework.dll` (NUnit 2.6) is.
fn nunit_framework() -> Result<PathBuf, String> {
    let mut candidates = Vec::new();
    for dir in ["/usr/lib/cli", "/usr/lib/mono/gac/nunit.framework"] {
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                candidates.push(entry.path().join("nunit.framework.dll"));
            }
        }
    }
    candidates.sort();
    candidates
        .into_iter()
        .find(|path| path.is_file() && path.to_string_lossy().contains("nunit.framework"))
        .ok_or_else(|| "nunit.framework.dll not found (Debian: apt-get install libnunit-cil-dev)".to_owned())
}

/// `target/mono`, where the assemblies and a copy of the native library go.
pub fn out_dir() -> PathBuf {
    root().join("target").join("mono")
}

/// All `.cs` files below `dir`, sorted (so builds are reproducible).
fn sources(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "cs") {
                found.push(path.display().to_string());
            }
        }
    }
    found.sort();
    found
}

fn mcs(title: &str, output: &Path, target: &str, extra: &[String], files: Vec<String>) -> Result<(), String> {
    Step::new(title, "mcs")
        .args(["-nologo", "-unsafe", "-warnaserror+", "-debug-", "-langversion:7.2", "-r:System.Net.Http.dll"])
        .arg(format!("-target:{target}"))
        .arg(format!("-out:{}", output.display()))
        .args(extra)
        .args(files)
        .run()
}

/// Compiles the package's runtime (outside-Unity flavour) into `target/mono/RankingElo.dll`
/// with XML documentation (a missing doc comment fails the build).
pub fn build_runtime() -> Result<PathBuf, String> {
    let out = out_dir();
    std::fs::create_dir_all(&out).map_err(|e| e.to_string())?;
    let dll = out.join("RankingElo.dll");
    let doc = format!("-doc:{}", out.join("RankingElo.xml").display());
    mcs("C# runtime (mcs)", &dll, "library", &[doc], sources(&root().join("unity/Runtime")))?;
    Ok(dll)
}

/// Copies the native library next to the assemblies so Mono's loader finds it.
pub fn copy_native(library_dir: &Path) -> Result<(), String> {
    let name = native_name();
    std::fs::copy(library_dir.join(name), out_dir().join(name)).map_err(|e| format!("copy {name}: {e}"))?;
    Ok(())
}

pub fn native_name() -> &'static str {
    if cfg!(windows) {
        "ranking_elo.dll"
    } else if cfg!(target_os = "macos") {
        "libranking_elo.dylib"
    } else {
        "libranking_elo.so"
    }
}

/// Builds and runs the NUnit suite of `unity/Tests/Editor` against the native library.
pub fn nunit_tests(runtime: &Path) -> Result<Counts, String> {
    let out = out_dir();
    let tests = out.join("RankingElo.Tests.Editor.dll");
    let framework = nunit_framework()?;
    let references = vec![format!("-r:{}", runtime.display()), format!("-r:{}", framework.display())];
    // The package's tests, plus Mono-only tests of the sample's simulation code.
    let mut files = sources(&root().join("unity/Tests"));
    files.extend(sources(&root().join("tests/mono")));
    files.push(root().join("unity/Samples~/LeagueDemo/Population.cs").display().to_string());
    mcs("C# tests (mcs)", &tests, "library", &references, files)?;
    Step::new("C# tests (nunit-console on Mono)", "nunit-console")
        .args(["-nologo", "-noshadow", "-labels"])
        .arg(format!("-xml={}", out.join("TestResult.xml").display()))
        .arg(tests.display().to_string())
        .env("LD_LIBRARY_PATH", out.display().to_string())
        .env("RANKING_ELO_REFERENCE_VECTORS", root().join("unity/Tests/Runtime/Resources/RankingEloReferenceVectors.txt").display().to_string())
        .run_counted()
}

/// Compiles the Unity flavour of everything (runtime with `NativeArray` overloads, tests,
/// sample scripts) against `tests/unity-stand-in`, with Unity's defines.
pub fn unity_compile_check() -> Result<(), String> {
    let unity = root().join("unity");
    let mut files = sources(&unity.join("Runtime"));
    files.extend(sources(&unity.join("Tests")));
    files.extend(sources(&unity.join("Samples~")));
    files.extend(sources(&unity.join("Editor")));
    files.extend(sources(&root().join("tests/unity-stand-in")));
    let defines = vec![
        "-define:UNITY_5_3_OR_NEWER;UNITY_2021_3_OR_NEWER;UNITY_INCLUDE_TESTS;UNITY_EDITOR".to_owned(),
        format!("-r:{}", nunit_framework()?.display()),
    ];
    mcs("Unity flavour + sample (mcs against the UnityEngine stand-in)", &out_dir().join("UnityCompileCheck.dll"), "library", &defines, files)
}

/// Builds and runs the C# benchmark (managed tutorial, one P/Invoke per pair, batch).
pub fn run_benchmark(runtime: &Path, library_dir: &Path) -> Result<(), String> {
    let exe = out_dir().join("Benchmark.exe");
    let files = vec![root().join("benches/mono/Benchmark.cs").display().to_string()];
    mcs("C# benchmark (mcs, optimized)", &exe, "exe", &[format!("-r:{}", runtime.display()), "-optimize+".to_owned()], files)?;
    copy_native(library_dir)?;
    Step::new("C# benchmark on Mono", "mono")
        .args(["--optimize=all"])
        .arg(exe.display().to_string())
        .env("LD_LIBRARY_PATH", out_dir().display().to_string())
        .run()
}

/// Builds and runs the console demo (a league season) through the wrapper.
pub fn run_demo(runtime: &Path, plugin_dir: &Path) -> Result<(), String> {
    let exe = out_dir().join("LeagueSeason.exe");
    let files = vec![
        root().join("demo/LeagueSeason.cs").display().to_string(),
        root().join("unity/Samples~/LeagueDemo/Population.cs").display().to_string(),
    ];
    mcs("demo (mcs)", &exe, "exe", &[format!("-r:{}", runtime.display())], files)?;
    Step::new("demo: a league season on Mono", "mono")
        .arg(exe.display().to_string())
        .env("LD_LIBRARY_PATH", plugin_dir.display().to_string())
        .env("DYLD_LIBRARY_PATH", plugin_dir.display().to_string())
        .run()
}
