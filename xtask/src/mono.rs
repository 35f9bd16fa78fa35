//! The C# side on Mono: compile the Unity package's wrapper and tests with `mcs`, run the
//! NUnit suite with `nunit-console`, compile the Unity-only code paths and the sample
//! against a UnityEngine stand-in, and run the console demo.

use std::path::{Path, PathBuf};

use crate::tools::root;
use crate::tools::{ensure, ensure_that, Counts, Step};

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
pub fn nunit_framework() -> Result<PathBuf, String> {
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
pub fn sources(dir: &Path) -> Vec<String> {
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

pub fn mcs(title: &str, output: &Path, target: &str, extra: &[String], files: Vec<String>) -> Result<(), String> {
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

/// The NUnit suite's sources: the package's tests, plus Mono-only tests of the samples' code
/// (the league's simulation; the ranked-play flow against the real server, whose screen needs
/// UI Toolkit and is compiled in `unity_compile_check`).
fn test_sources() -> Vec<String> {
    let mut files = sources(&root().join("unity/Tests"));
    files.extend(sources(&root().join("tests/fixtures/mono")));
    files.push(root().join("unity/Samples~/LeagueDemo/Population.cs").display().to_string());
    for logic in ["RankedPlayFlow.cs", "DemoGameBackend.cs"] {
        files.push(root().join("unity/Samples~/RankedPlay").join(logic).display().to_string());
    }
    files
}

/// Builds and runs the NUnit suite of `unity/Tests/Editor` against the native library.
pub fn nunit_tests(runtime: &Path) -> Result<Counts, String> {
    let out = out_dir();
    let tests = out.join("RankingElo.Tests.Editor.dll");
    let framework = nunit_framework()?;
    let references = vec![format!("-r:{}", runtime.display()), format!("-r:{}", framework.display())];
    mcs("C# tests (mcs)", &tests, "library", &references, test_sources())?;
    Step::new("C# tests (nunit-console on Mono)", "nunit-console")
        .args(["-nologo", "-noshadow", "-labels"])
        .arg(format!("-xml={}", out.join("TestResult.xml").display()))
        .arg(tests.display().to_string())
        .env("LD_LIBRARY_PATH", out.display().to_string())
        .env("RANKING_ELO_REFERENCE_VECTORS", root().join("unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt").display().to_string())
        .run_counted()
}

/// Compiles the Unity flavour of everything (runtime with `NativeArray` overloads, tests,
/// sample scripts, Editor code) against `tests/fixtures/unity-stand-in`, with Unity's defines:
/// as the oldest supported Editor (2021.3), as Unity 6.3 (whose code paths differ: the
/// `Awaitable` calls, `destroyCancellationToken`), and as Unity 6.3 with UniTask installed.
pub fn unity_compile_check() -> Result<(), String> {
    let unity = root().join("unity");
    let mut files = sources(&unity.join("Runtime"));
    files.extend(sources(&unity.join("Tests")));
    files.extend(sources(&unity.join("Samples~")));
    files.extend(sources(&unity.join("Editor")));
    files.extend(sources(&root().join("tests/fixtures/unity-stand-in")));
    let unity_6 = format!("{UNITY_6_EDITOR_DEFINES};UNITY_INCLUDE_TESTS");
    let editors = [
        ("2021.3".to_owned(), format!("{UNITY_EDITOR_DEFINES};UNITY_INCLUDE_TESTS")),
        ("6000.3".to_owned(), unity_6.clone()),
        // With UniTask installed: the asmdef's versionDefines define RANKING_ELO_UNITASK.
        ("6000.3 with UniTask".to_owned(), format!("{unity_6};RANKING_ELO_UNITASK")),
    ];
    for (version, defines) in editors {
        let arguments = vec![format!("-define:{defines}"), format!("-r:{}", nunit_framework()?.display())];
        mcs(
            &format!("Unity {version} flavour + samples + Editor (mcs against the UnityEngine stand-in)"),
            &out_dir().join(format!("UnityCompileCheck-{}.dll", version.replace(' ', "-"))),
            "library",
            &arguments,
            files.clone(),
        )?;
    }
    Ok(())
}

/// The programs of `tests/fixtures/unity-flavour`, each compiled with the package's Unity Editor
/// flavour against the stand-ins (whose `UnityWebRequest` and `AtomicSafetyHandle` behave as
/// Unity's where the package relies on them) and run on Mono with the native library: the
/// Unity-only paths that have no other runner here (the ladder client's `UnityWebRequest`
/// path, the Burst handles' safety checks).
pub fn unity_flavour_programs() -> Result<Counts, String> {
    let work = root().join("target/mono-unity-flavour");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut counts = Counts::default();
    for program in sources(&root().join("tests/fixtures/unity-flavour")) {
        let name = Path::new(&program).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let exe = work.join(format!("{name}.exe"));
        let mut files = sources(&root().join("unity/Runtime"));
        files.extend(sources(&root().join("tests/fixtures/unity-stand-in")));
        files.push(program.clone());
        // The Editor's defines, collection checks included (on by default in the Editor).
        let defines = vec![format!("-define:{UNITY_EDITOR_DEFINES};ENABLE_UNITY_COLLECTIONS_CHECKS"), format!("-r:{}", nunit_framework()?.display())];
        mcs(&format!("{name}, Unity Editor flavour (mcs against the stand-ins)"), &exe, "exe", &defines, files)?;
        counts += Step::new(&format!("{name} on Mono (Unity flavour)"), "mono")
            .arg(exe.display().to_string())
            .current_dir(&work)
            .env("LD_LIBRARY_PATH", out_dir().display().to_string())
            .run_counted()?;
    }
    if counts.total() == 0 {
        return Err("tests/fixtures/unity-flavour has no program".to_owned());
    }
    Ok(counts)
}

/// The defines of a Unity 2021.3 Editor on Linux, for programs that run the Unity flavour.
const UNITY_EDITOR_DEFINES: &str = "UNITY_5_3_OR_NEWER;UNITY_2021_3_OR_NEWER;UNITY_EDITOR;UNITY_EDITOR_LINUX";

/// The defines of a Unity 6.3 Editor on Linux (each version's `_OR_NEWER` up to 6000.3, as
/// Unity defines them).
pub const UNITY_6_EDITOR_DEFINES: &str = "UNITY_5_3_OR_NEWER;UNITY_2021_3_OR_NEWER;UNITY_2022_1_OR_NEWER;UNITY_2022_2_OR_NEWER;UNITY_2022_3_OR_NEWER;UNITY_2023_1_OR_NEWER;UNITY_2023_2_OR_NEWER;UNITY_6000_0_OR_NEWER;UNITY_6000_1_OR_NEWER;UNITY_6000_2_OR_NEWER;UNITY_6000_3_OR_NEWER;UNITY_EDITOR;UNITY_EDITOR_LINUX";

/// The programs of `tests/fixtures/unity-editor`: the package's Editor code (with its runtime) and
/// the program compiled against the stand-ins, whose Player Settings the program sets, once
/// as Unity 2021.3 and once as Unity 6.3 (the Editor code differs between them), each run on
/// Mono: the build checks (`PlatformRequirements`) that no other runner here reaches.
pub fn unity_editor_programs() -> Result<Counts, String> {
    let work = root().join("target/mono-unity-editor");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut counts = Counts::default();
    for program in sources(&root().join("tests/fixtures/unity-editor")) {
        let name = Path::new(&program).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        for (version, defines) in [("2021.3", UNITY_EDITOR_DEFINES), ("6000.3", UNITY_6_EDITOR_DEFINES)] {
            let exe = work.join(format!("{name}-{version}.exe"));
            let mut files = sources(&root().join("unity/Runtime"));
            files.extend(sources(&root().join("unity/Editor")));
            files.extend(sources(&root().join("tests/fixtures/unity-stand-in")));
            files.push(program.clone());
            let arguments = vec![format!("-define:{defines}"), format!("-r:{}", nunit_framework()?.display())];
            mcs(&format!("{name}, Unity {version} Editor (mcs against the stand-ins)"), &exe, "exe", &arguments, files)?;
            counts += Step::new(&format!("{name} on Mono (as Unity {version})"), "mono").arg(exe.display().to_string()).current_dir(&work).run_counted()?;
        }
    }
    if counts.total() == 0 {
        return Err("tests/fixtures/unity-editor has no program".to_owned());
    }
    Ok(counts)
}

/// What a game meets when the native library is missing and then fixed
/// (`tests/fixtures/load-failure/LoadFailure.cs`): the program runs in a folder without the library
/// (and `LD_LIBRARY_PATH` pointing there), checks that every entry point names the binary
/// and the platform, copies the library in and checks that every entry point then works.
/// Once with the package as built outside Unity, once in its Unity Editor flavour against the
/// stand-ins (where it also checks that loading a rules asset runs no native code).
pub fn load_failures(runtime: &Path, library_dir: &Path) -> Result<Counts, String> {
    let program = root().join("tests/fixtures/load-failure/LoadFailure.cs").display().to_string();
    let library = library_dir.join(native_name()).display().to_string();
    let mut counts = Counts::default();
    let work = root().join("target/mono-load-failure");
    let _ = std::fs::remove_dir_all(&work);
    for flavour in ["outside-unity", "unity-editor"] {
        let dir = work.join(flavour);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let exe = dir.join("LoadFailure.exe");
        if flavour == "unity-editor" {
            let unity = root().join("unity");
            let mut files = sources(&unity.join("Runtime"));
            files.extend(sources(&root().join("tests/fixtures/unity-stand-in")));
            files.push(program.clone());
            let defines = vec![format!("-define:{UNITY_EDITOR_DEFINES}"), format!("-r:{}", nunit_framework()?.display())];
            mcs("load failures, Unity Editor flavour (mcs against the stand-ins)", &exe, "exe", &defines, files)?;
        } else {
            std::fs::copy(runtime, dir.join("RankingElo.dll")).map_err(|e| e.to_string())?;
            mcs("load failures, outside Unity (mcs)", &exe, "exe", &[format!("-r:{}", runtime.display())], vec![program.clone()])?;
        }
        counts += Step::new(&format!("load failures ({flavour}): missing library, then fixed"), "mono")
            .arg(exe.display().to_string())
            .arg(&library)
            .current_dir(&dir)
            .env("LD_LIBRARY_PATH", dir.display().to_string())
            .run_counted()?;
    }
    Ok(counts)
}

/// Builds and runs the C# benchmark (managed tutorial, one P/Invoke per pair, batch).
pub fn run_benchmark(runtime: &Path, library_dir: &Path) -> Result<(), String> {
    let exe = out_dir().join("Benchmark.exe");
    let files = vec![root().join("benches/mono/Benchmark.cs").display().to_string()];
    mcs("C# benchmark (mcs, optimized)", &exe, "exe", &[format!("-r:{}", runtime.display()), "-optimize+".to_owned()], files)?;
    copy_native(library_dir)?;
    Step::new("C# benchmark on Mono", "mono").args(["--optimize=all"]).arg(exe.display().to_string()).env("LD_LIBRARY_PATH", out_dir().display().to_string()).run()
}

/// Builds and runs the console demo (a league season) through the wrapper.
pub fn run_demo(runtime: &Path, plugin_dir: &Path) -> Result<(), String> {
    let exe = out_dir().join("LeagueSeason.exe");
    let files = vec![root().join("demo/LeagueSeason.cs").display().to_string(), root().join("unity/Samples~/LeagueDemo/Population.cs").display().to_string()];
    mcs("demo (mcs)", &exe, "exe", &[format!("-r:{}", runtime.display())], files)?;
    Step::new("demo: a league season on Mono", "mono")
        .arg(exe.display().to_string())
        .env("LD_LIBRARY_PATH", plugin_dir.display().to_string())
        .env("DYLD_LIBRARY_PATH", plugin_dir.display().to_string())
        .run()
}

/// The assemblies `nunit-console` and the tests load, which full-AOT mode needs compiled
/// ahead of time (Mono names each missing one when it stops; this is that list).
const FULL_AOT_FRAMEWORK: [&str; 29] = [
    "System",
    "System.Xml",
    "System.Configuration",
    "System.Drawing",
    "System.Runtime.Remoting",
    "Mono.Security",
    "System.Security",
    "System.Numerics",
    "System.Core",
    "System.Runtime.Serialization.Formatters.Soap",
    "System.Web",
    "System.Data",
    "System.Transactions",
    "System.Web.Services",
    "System.Design",
    "System.Windows.Forms",
    "Mono.WebBrowser",
    "Mono.Posix",
    "System.DirectoryServices",
    "Novell.Directory.Ldap",
    "Mono.Data.Sqlite",
    "System.Web.ApplicationServices",
    "System.ComponentModel.DataAnnotations",
    "nunit.framework",
    "nunit.core",
    "nunit.core.interfaces",
    "nunit.util",
    "nunit-console-runner",
    "System.Net.Http",
];

/// Debian's NUnit 2 console runner.
const NUNIT_CONSOLE: &str = "/usr/lib/nunit/nunit-console.exe";

/// The C# wrapper the way Unity's iOS and WebGL players call the engine, and under the rule
/// IL2CPP imposes (no code generated at run time), with Mono standing in for IL2CPP:
///
/// 1. the wrapper compiled with `UNITY_IOS` (every `DllImport` is `"__Internal"`) runs the
///    NUnit suite inside `tests/fixtures/mono/internal_host.c`, a program that embeds Mono and has
///    the static library linked in; Mono's log must show `__Internal` lookups and none of
///    `ranking_elo`; the same assemblies under plain `mono` (no engine in the process) must
///    fail (the negative control);
/// 2. every assembly is compiled ahead of time (`mono --aot=full`) into a private folder,
///    and the suite runs with `--full-aot`: the ordinary wrapper with the shared library,
///    and the `__Internal` wrapper in the host.
pub fn internal_and_full_aot(library_dir: &Path) -> Result<Counts, String> {
    ensure("pkg-config", &["pkg-config"], "install pkg-config")?;
    let has_mono_dev = || std::process::Command::new("pkg-config").args(["--exists", "mono-2"]).status().is_ok_and(|s| s.success());
    ensure_that("Mono's embedding headers", has_mono_dev, &["libmono-2.0-dev"], "install libmono-2.0-dev")?;
    let work = root().join("target/mono-internal");
    let _ = std::fs::remove_dir_all(&work);
    let framework = nunit_framework()?;
    let mut counts = Counts::default();
    for (flavour, defines) in [("normal", vec![]), ("internal", vec!["-define:UNITY_IOS".to_owned()])] {
        let dir = work.join(flavour);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let runtime = dir.join("RankingElo.dll");
        mcs(&format!("C# runtime, {flavour} DllImports (mcs)"), &runtime, "library", &defines, sources(&root().join("unity/Runtime")))?;
        let references = vec![format!("-r:{}", runtime.display()), format!("-r:{}", framework.display())];
        mcs(&format!("C# tests, {flavour} (mcs)"), &dir.join("RankingElo.Tests.Editor.dll"), "library", &references, test_sources())?;
    }
    std::fs::copy(library_dir.join(native_name()), work.join("normal").join(native_name())).map_err(|e| e.to_string())?;

    // The host: the engine linked statically, every elo_ function kept (-u) and exported.
    let host = work.join("internal_host");
    let flags = std::process::Command::new("pkg-config").args(["--cflags", "--libs", "mono-2"]).output().map_err(|e| format!("pkg-config: {e}"))?;
    let mono_flags: Vec<String> = String::from_utf8_lossy(&flags.stdout).split_whitespace().map(str::to_owned).collect();
    Step::new("the Mono host with the engine linked in (cc)", "cc")
        .args(["-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(root().join("tests/fixtures/mono/internal_host.c"))
        .args(&mono_flags)
        .arg("-Wl,--export-dynamic")
        .args(crate::header::functions()?.iter().map(|f| format!("-Wl,-u,{f}")))
        .arg(library_dir.join("libranking_elo.a"))
        .args(["-lgcc_s", "-lpthread", "-lm", "-ldl", "-o"])
        .arg(&host)
        .run()?;
    let vectors = root().join("unity/Tests/Runtime/Vectors~/RankingEloReferenceVectors.txt").display().to_string();
    let nunit = |runner: &Path, prefix: &[&str], flavour: &str, env: &[(&str, String)]| -> Result<(Counts, String), String> {
        let dir = work.join(flavour);
        let output = std::process::Command::new(runner)
            .args(prefix)
            .args(["-nologo", "-noshadow", "-process=Single", "-domain=None", "RankingElo.Tests.Editor.dll"])
            .current_dir(&dir)
            .env_remove("LD_LIBRARY_PATH")
            .env("RANKING_ELO_REFERENCE_VECTORS", &vectors)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .output()
            .map_err(|e| format!("{}: {e}", runner.display()))?;
        let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let mut ran = Counts::default();
        for line in text.lines() {
            ran.read_line(line);
        }
        Ok((ran, text))
    };
    let log = [("MONO_LOG_LEVEL", "debug".to_owned()), ("MONO_LOG_MASK", "dll".to_owned())];

    println!("==> C# suite through DllImport(\"__Internal\"), engine linked into the host (JIT)");
    let (ran, text) = nunit(&host, &[NUNIT_CONSOLE], "internal", &log)?;
    let internal_lookups = text.matches("'__Internal'").count();
    let library_lookups = text.lines().filter(|l| l.starts_with("Mono") && (l.contains("'ranking_elo'") || l.contains("libranking_elo.so"))).count();
    println!("    {} passed, {} failed; Mono's log: {internal_lookups} lookups in '__Internal', {library_lookups} of ranking_elo", ran.passed, ran.failed);
    counts += suite_verdict("the C# suite with \"__Internal\" in the host", ran, &text);
    counts += crate::harness::verdict("every native call resolved in the host, none in a library", internal_lookups > 0 && library_lookups == 0, "");
    let (control, _) = nunit(Path::new("mono"), &[NUNIT_CONSOLE], "internal", &[])?;
    counts +=
        crate::harness::verdict("negative control: the \"__Internal\" suite fails without the engine in the process", control.failed > 0, &format!("{} failed", control.failed));

    println!("==> full AOT: every assembly compiled ahead of time (mono --aot=full)");
    let started = std::time::Instant::now();
    let aot_dir = work.join("framework");
    std::fs::create_dir_all(&aot_dir).map_err(|e| e.to_string())?;
    std::fs::copy("/usr/lib/mono/4.5/mscorlib.dll", aot_dir.join("mscorlib.dll")).map_err(|e| format!("mscorlib.dll: {e}"))?;
    std::fs::copy(NUNIT_CONSOLE, aot_dir.join("nunit-console.exe")).map_err(|e| e.to_string())?;
    std::fs::copy(format!("{NUNIT_CONSOLE}.config"), aot_dir.join("nunit-console.exe.config")).map_err(|e| e.to_string())?;
    for name in FULL_AOT_FRAMEWORK {
        std::fs::copy(gac_assembly(name)?, aot_dir.join(format!("{name}.dll"))).map_err(|e| format!("{name}: {e}"))?;
    }
    let mut assemblies: Vec<(PathBuf, String)> = Vec::new();
    for entry in std::fs::read_dir(&aot_dir).map_err(|e| e.to_string())?.flatten() {
        assemblies.push((entry.path(), aot_dir.display().to_string()));
    }
    for flavour in ["normal", "internal"] {
        let dir = work.join(flavour);
        for name in ["RankingElo.dll", "RankingElo.Tests.Editor.dll"] {
            assemblies.push((dir.join(name), format!("{}:{}", dir.display(), aot_dir.display())));
        }
    }
    for (assembly, mono_path) in &assemblies {
        if assembly.extension().is_some_and(|e| e == "config") {
            continue;
        }
        Step::new(&format!("mono --aot=full {}", assembly.display()), "mono")
            // More trampolines than the default 4096: async code (the LadderClient tests) needs them.
            .args(["--aot=full,ntrampolines=32768,nrgctx-trampolines=32768,nimt-trampolines=4096", "-O=all"])
            .arg(assembly)
            .env("MONO_PATH", mono_path)
            .quiet()
            .run()?;
    }
    println!("    {} assemblies compiled ahead of time in {:.0} s", assemblies.len(), started.elapsed().as_secs_f64());
    let console = aot_dir.join("nunit-console.exe").display().to_string();
    let normal_path = format!("{}:{}", work.join("normal").display(), aot_dir.display());
    let (ran, text) = nunit(Path::new("mono"), &["--full-aot", &console], "normal", &[("MONO_PATH", normal_path), ("LD_LIBRARY_PATH", work.join("normal").display().to_string())])?;
    counts += suite_verdict("the C# suite under mono --full-aot (libranking_elo.so)", ran, &text);
    let internal_path = format!("{}:{}", work.join("internal").display(), aot_dir.display());
    let (ran, text) = nunit(&host, &[&console], "internal", &[("MONO_PATH", internal_path), ("RANKING_ELO_FULL_AOT", "1".to_owned())])?;
    counts += suite_verdict("the C# suite in full-AOT mode through \"__Internal\" (the host)", ran, &text);
    Ok(counts)
}

/// A suite run passes when it ran tests and none failed.
fn suite_verdict(what: &str, ran: Counts, text: &str) -> Counts {
    let ok = ran.passed > 0 && ran.failed == 0 && !text.contains("Attempting to JIT compile");
    if !ok {
        println!("{text}");
    }
    crate::harness::verdict(what, ok, &format!("{} passed, {} failed", ran.passed, ran.failed))
}

/// The newest copy of an assembly in Mono's global assembly cache.
fn gac_assembly(name: &str) -> Result<PathBuf, String> {
    let dir = PathBuf::from("/usr/lib/mono/gac").join(name);
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?.flatten().map(|e| e.path().join(format!("{name}.dll"))).filter(|p| p.is_file()).collect();
    found.sort();
    found.pop().ok_or_else(|| format!("{name}.dll is not in Mono's GAC"))
}
