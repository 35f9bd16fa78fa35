//! Tests of the committed binaries of the Unity package (`cargo xtask test` runs them).
//!
//! Every binary that can run on this machine, or in an emulator here, runs the project's
//! own C test (`tests/fixtures/c/test_ranking_elo.c`) and vector replay (`tests/fixtures/c/replay_vectors.c`);
//! each must pass and print the same digest of its outputs as the freshly built host
//! library, and each must fail on a copy of the vectors with one flipped bit (the negative
//! control: a run that cannot fail proves nothing). What runs where:
//!
//! | binary | how it runs here | what stands in for the real system |
//! |---|---|---|
//! | Linux x86-64 `.so` | natively | (none) |
//! | Linux arm64 `.so` | `qemu-aarch64` | a CPU emulator |
//! | Windows x64 `.dll` | `wine64` | Wine for Windows |
//! | Windows arm64 `.dll` | not run (`windows_arm64_checks` says why); checked as a file | |
//! | WebGL `.a` | linked by `emcc`, under `node` and in headless Chromium | Debian's Emscripten for Unity's |
//! | Android `.so` ×3 | x86_64 natively, arm64 under `qemu-aarch64`, armeabi-v7a under `qemu-arm` | glibc plus a shim (`tests/fixtures/android/bionic_shim.c`) for bionic |
//! | macOS `.dylib` (2 slices), iOS `.a` (device, simulator) | Unicorn (`tests/fixtures/darwin_run.py`), after an `ld64.lld` link against libSystem's export list | the emulator's libSystem stand-ins for Darwin |
//!
//! Beside the runs: every binary exports exactly the header's functions; the Android
//! libraries pass the Play Store's and the NDK's checks (`android_checks`); the static
//! libraries define no global symbol but the `elo_` functions and carry no bitcode; the
//! Apple binaries' load commands, code signature (ours and `rcodesign`'s) and privacy
//! manifest are right (`apple.rs`); a threaded WebGL link refuses the library, as the
//! Editor's build check says; no shipped binary carries debug information, and the debug
//! files `cargo xtask dist` left here match their binaries (`symbols.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{out_dir, plugin, source, tool_output, verdict, Execution, Runnable, STRICT};
use crate::platforms::{Kind, PLATFORMS};
use crate::tools::root;
use crate::tools::{ensure, Counts, Step};

/// Debian packages the cross-platform runs need.
pub const PACKAGES: [&str; 15] = [
    "gcc-aarch64-linux-gnu",
    "libc6-dev-arm64-cross",
    "gcc-arm-linux-gnueabi",
    "libc6-dev-armel-cross",
    "qemu-user",
    "gcc-mingw-w64-x86-64",
    "wine64",
    "emscripten",
    "nodejs",
    "llvm-22",
    "clang-22",
    "lld-22",
    "chromium",
    "python3-pip",
    "python3-venv",
];

/// The Wine loader (Debian installs it outside PATH).
const WINE: &str = "/usr/lib/wine/wine64";

fn ensure_tools() -> Result<(), String> {
    let hint = format!("install the cross compilers and runners (Debian: {})", PACKAGES.join(" "));
    for program in [
        "aarch64-linux-gnu-gcc",
        "arm-linux-gnueabi-gcc",
        "qemu-aarch64",
        "qemu-arm",
        "x86_64-w64-mingw32-gcc",
        "emcc",
        "node",
        "llvm-nm-22",
        "llvm-readobj-22",
        "clang-22",
        "ld64.lld-22",
        "chromium",
        WINE,
    ] {
        ensure(program, &PACKAGES, &hint)?;
    }
    Ok(())
}

/// A program compiled by a C compiler for the platform and run as a process, directly or
/// under a runner (qemu, Wine, node).
struct Process {
    title: String,
    /// Compiler for the test programs.
    cc: String,
    /// Extra compiler arguments after the source (libraries).
    link: Vec<String>,
    /// Output file suffix.
    exe: &'static str,
    /// Where the executables go (Windows: beside the DLL).
    dir: PathBuf,
    /// Runner program and its arguments before the executable (empty: run directly).
    runner: Vec<String>,
    /// Environment for the run.
    env: Vec<(String, String)>,
}

impl Runnable for Process {
    fn title(&self) -> String {
        self.title.clone()
    }

    fn execute(&self, program: &str, args: &[PathBuf]) -> Result<Execution, String> {
        let exe = self.dir.join(format!("{program}{}", self.exe));
        if !exe.exists() {
            std::fs::create_dir_all(&self.dir).map_err(|e| e.to_string())?;
            Step::new(&format!("{program} for {} (compile)", self.title), &self.cc)
                .args(STRICT)
                .arg(format!("-I{}", root().join("include").display()))
                .arg(source(program))
                .args(&self.link)
                .arg("-o")
                .arg(&exe)
                .run()?;
        }
        let mut command = if self.runner.is_empty() { Command::new(&exe) } else { Command::new(&self.runner[0]) };
        if !self.runner.is_empty() {
            command.args(&self.runner[1..]).arg(&exe);
        }
        command.args(args).current_dir(&self.dir).envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let output = command.output().map_err(|e| format!("{program} on {}: cannot start: {e}", self.title))?;
        Ok(Execution {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// The platforms run as processes: the host build, Linux, Windows, WebGL under node, and
/// Android through the bionic shim.
fn processes(host_library: &Path) -> Result<Vec<Box<dyn Runnable>>, String> {
    let dir = |folder: &str| plugin(folder).parent().expect("plugin folder").display().to_string();
    // Every run compiles its programs afresh (the sources may have changed).
    let fresh = |title: &str| {
        let dir = out_dir(title);
        let _ = std::fs::remove_dir_all(&dir);
        dir
    };
    // Windows: the DLL, the Wine stand-in for bcryptprimitives.dll and the programs share a
    // folder (Windows looks for DLLs beside the program first).
    let wine_dir = fresh("windows");
    std::fs::create_dir_all(&wine_dir).map_err(|e| e.to_string())?;
    std::fs::copy(plugin("Windows/x86_64"), wine_dir.join("ranking_elo.dll")).map_err(|e| format!("copy the DLL: {e}"))?;
    Step::new("Wine stand-in for bcryptprimitives.dll (test only)", "x86_64-w64-mingw32-gcc")
        .args(["-shared", "-O2", "-o"])
        .arg(wine_dir.join("bcryptprimitives.dll"))
        .arg(root().join("tests/fixtures/wine/bcryptprimitives.c"))
        .arg("-ladvapi32")
        .run()?;
    let mut runs: Vec<Box<dyn Runnable>> = vec![
        Box::new(Process {
            title: "host build".into(),
            cc: "cc".into(),
            link: vec![format!("-L{}", host_library.display()), "-lranking_elo".into(), "-lm".into()],
            exe: "",
            dir: fresh("host build"),
            runner: vec![],
            env: vec![("LD_LIBRARY_PATH".into(), host_library.display().to_string())],
        }),
        Box::new(Process {
            title: "Linux x86_64 (committed .so)".into(),
            cc: "cc".into(),
            link: vec![format!("-L{}", dir("Linux/x86_64")), "-lranking_elo".into(), "-lm".into()],
            exe: "",
            dir: fresh("linux x86_64"),
            runner: vec![],
            env: vec![("LD_LIBRARY_PATH".into(), dir("Linux/x86_64"))],
        }),
        Box::new(Process {
            title: "Linux arm64 (committed .so, qemu-aarch64)".into(),
            cc: "aarch64-linux-gnu-gcc".into(),
            link: vec![format!("-L{}", dir("Linux/arm64")), "-lranking_elo".into(), "-lm".into()],
            exe: "",
            dir: fresh("linux arm64"),
            runner: vec!["qemu-aarch64".into(), "-L".into(), "/usr/aarch64-linux-gnu".into(), "-E".into(), format!("LD_LIBRARY_PATH={}", dir("Linux/arm64"))],
            env: vec![],
        }),
        Box::new(Process {
            title: "Windows x86_64 (committed .dll, wine64)".into(),
            cc: "x86_64-w64-mingw32-gcc".into(),
            link: vec![wine_dir.join("ranking_elo.dll").display().to_string()],
            exe: ".exe",
            dir: wine_dir,
            runner: vec![WINE.into()],
            env: vec![
                ("WINEPREFIX".into(), out_dir("wine-prefix").display().to_string()),
                ("WINEDEBUG".into(), "-all".into()),
                ("WINEDLLOVERRIDES".into(), "mscoree,mshtml=".into()),
            ],
        }),
        Box::new(Process {
            title: "WebGL (committed Emscripten library, node)".into(),
            cc: "emcc".into(),
            link: {
                let mut link = vec![plugin("WebGL").display().to_string()];
                link.extend(crate::browser::EMCC_LIBRARY_FLAGS.iter().map(|f| (*f).to_owned()));
                link.extend(["-sNODERAWFS=1".to_owned()]);
                link
            },
            exe: ".js",
            dir: fresh("webgl node"),
            runner: vec!["node".into(), "--no-experimental-fetch".into()],
            env: vec![],
        }),
    ];
    for abi in crate::android::ABIS {
        runs.push(android_process(&abi)?);
    }
    Ok(runs)
}

/// The Android library of `abi` run under glibc: natively or under qemu, with the bionic
/// shim preloaded as `libc.so` (and empty `libm.so`, `libdl.so` that pull in glibc's).
fn android_process(abi: &crate::android::Abi) -> Result<Box<dyn Runnable>, String> {
    let (cc, sysroot, qemu) = match abi.bionic_arch {
        "x86_64" => ("cc", "", ""),
        "arm64" => ("aarch64-linux-gnu-gcc", "/usr/aarch64-linux-gnu", "qemu-aarch64"),
        "arm" => ("arm-linux-gnueabi-gcc", "/usr/arm-linux-gnueabi", "qemu-arm"),
        other => return Err(format!("no runner for Android {other}")),
    };
    let title = format!("{} (committed .so, {}bionic shim)", abi.folder, if qemu.is_empty() { String::new() } else { format!("{qemu}, ") });
    let dir = out_dir(&title);
    let _ = std::fs::remove_dir_all(&dir);
    let shim = dir.join("shim");
    std::fs::create_dir_all(&shim).map_err(|e| e.to_string())?;
    let empty = shim.join("empty.c");
    std::fs::write(&empty, "/* An empty library: its NEEDED entry pulls in glibc's. */\nvoid ranking_elo_bionic_shim_empty(void) {}\n").map_err(|e| e.to_string())?;
    for (name, source, needs) in [("libc.so", root().join("tests/fixtures/android/bionic_shim.c"), "-lc"), ("libm.so", empty.clone(), "-lm"), ("libdl.so", empty, "-ldl")] {
        Step::new(&format!("bionic shim {name} for {}", abi.folder), cc)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror"])
            .arg(format!("-Wl,-soname,{name}"))
            .arg(&source)
            .args(["-Wl,--no-as-needed", needs, "-o"])
            .arg(shim.join(name))
            .quiet()
            .run()?;
    }
    let library = plugin(abi.folder).parent().expect("plugin folder").display().to_string();
    let library_path = format!("{library}:{}", shim.display());
    let preload = shim.join("libc.so").display().to_string();
    let (runner, env) = if qemu.is_empty() {
        (vec![], vec![("LD_LIBRARY_PATH".to_owned(), library_path), ("LD_PRELOAD".to_owned(), preload)])
    } else {
        (vec![qemu.to_owned(), "-L".into(), sysroot.into(), "-E".into(), format!("LD_LIBRARY_PATH={library_path}"), "-E".into(), format!("LD_PRELOAD={preload}")], vec![])
    };
    Ok(Box::new(Process {
        title,
        cc: cc.into(),
        // The library's libc.so/libm.so/libdl.so are found at run time (the shim).
        link: vec![format!("-L{library}"), "-lranking_elo".into(), "-lm".into(), "-Wl,--allow-shlib-undefined".into()],
        exe: "",
        dir,
        runner,
        env,
    }))
}

/// The reference vectors, and a copy with one flipped output bit for the negative control.
struct Vectors {
    pair: PathBuf,
    team: PathBuf,
    fide: PathBuf,
    tampered: PathBuf,
}

impl Vectors {
    fn prepare() -> Result<Self, String> {
        let folder = root().join("unity/Tests/Runtime/Vectors~");
        let pair = folder.join("RankingEloReferenceVectors.txt");
        let text = std::fs::read_to_string(&pair).map_err(|e| format!("{}: {e}", pair.display()))?;
        // The first `rate` line's last output, one bit flipped.
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let line = lines.iter_mut().find(|l| l.starts_with("rate ")).ok_or("no rate line in the vectors")?;
        let (head, last) = line.rsplit_once(' ').ok_or("a rate line without fields")?;
        let bits = u32::from_str_radix(last, 16).map_err(|e| format!("{last}: {e}"))? ^ 1;
        *line = format!("{head} {bits:08x}");
        let tampered = root().join("target/binaries/TamperedVectors.txt");
        std::fs::create_dir_all(tampered.parent().expect("a folder")).map_err(|e| e.to_string())?;
        std::fs::write(&tampered, lines.join("\n") + "\n").map_err(|e| e.to_string())?;
        Ok(Self { pair, team: folder.join("RankingEloTeamVectors.txt"), fide: folder.join("RankingEloFideVectors.txt"), tampered })
    }
}

/// Runs both programs and the negative control on one platform; returns its counts and digest.
fn exercise(platform: &dyn Runnable, vectors: &Vectors) -> Result<(Counts, Option<String>), String> {
    let mut counts = Counts::default();
    let mut digest = None;
    for (program, args) in [("test_ranking_elo", vec![]), ("replay_vectors", vec![vectors.pair.clone(), vectors.team.clone(), vectors.fide.clone()])] {
        let title = format!("{program} on {}", platform.title());
        println!("==> {title}");
        let run = platform.execute(program, &args)?;
        let mut ran = Counts::default();
        for line in run.stdout.lines() {
            if line.starts_with("FAIL") || line.starts_with("digest") || line.starts_with("build") || line.contains(" passed, ") {
                println!("    {line}");
            }
            ran.read_line(line);
        }
        if !run.success || ran.total() == 0 || ran.failed > 0 {
            println!("{}{}", run.stdout, run.stderr);
            return Err(format!("{title} failed ({} passed, {} failed)", ran.passed, ran.failed));
        }
        counts += ran;
        if let Some(found) = run.stdout.lines().find_map(|l| l.strip_prefix("digest ")) {
            digest = Some(found.to_owned());
        }
    }
    // The negative control: the replay must notice one flipped bit.
    let control = platform.execute("replay_vectors", std::slice::from_ref(&vectors.tampered))?;
    let noticed = !control.success && control.stdout.lines().any(|l| l.starts_with("FAIL"));
    println!("    negative control (one flipped bit in a vector): {}", if noticed { "fails, as it must" } else { "DID NOT FAIL" });
    counts += Counts { passed: u64::from(noticed), failed: u64::from(!noticed) };
    Ok((counts, digest))
}

/// Runs the C programs on every platform that runs here (each with its negative control),
/// requires the host build's digest everywhere, and checks every binary's symbols.
pub fn run_all(host_library: &Path) -> Result<Counts, String> {
    ensure_tools()?;
    crate::apple::ensure_python_tools()?;
    let vectors = Vectors::prepare()?;
    let mut platforms = processes(host_library)?;
    platforms.push(Box::new(crate::browser::Chromium::new()?));
    platforms.extend(crate::apple::emulated()?);
    let mut counts = Counts::default();
    let mut digests: Vec<(String, String)> = Vec::new();
    for platform in &platforms {
        let (ran, digest) = exercise(platform.as_ref(), &vectors)?;
        counts += ran;
        digests.push((platform.title(), digest.ok_or_else(|| format!("{} printed no digest", platform.title()))?));
    }
    let reference = digests.first().map(|(_, d)| d.clone()).unwrap_or_default();
    for (title, digest) in &digests {
        let same = *digest == reference;
        println!("    {title}: digest {digest} {}", if same { "(same bits as the host build)" } else { "DIFFERS from the host build" });
        counts += Counts { passed: u64::from(same), failed: u64::from(!same) };
    }
    counts += exports()?;
    for abi in crate::android::ABIS {
        counts += android_checks(&abi)?;
    }
    counts += static_archive_checks()?;
    counts += crate::apple::checks()?;
    counts += windows_arm64_checks()?;
    counts += webgl_threads_check()?;
    counts += webgl_layout_check()?;
    counts += debug_information_checks()?;
    Ok(counts)
}

/// Windows on Arm: the DLL does not run here. Wine runs x86 and x64 code only on this x86-64
/// machine; Debian's arm64 Wine would have to replace the amd64 one (the same paths) and run
/// itself under qemu-user, which Wine's memory layout does not survive; and no emulator here
/// stands in for Windows' loader and system DLLs on arm64 as `darwin_run.py` does for Darwin.
/// What is checked instead: the file is an arm64 DLL (IMAGE_FILE_MACHINE_ARM64, a DLL image)
/// that imports from Windows' own DLLs only (no MinGW or LLVM runtime DLL beside it), and
/// its exports (`exports`) are the header's. The negative control: the same machine check on
/// the x64 DLL must fail.
fn windows_arm64_checks() -> Result<Counts, String> {
    println!("==> Windows/arm64: not run here (no Windows-on-Arm runner on x86-64 Linux: Wine runs x86 and x64 code only); checked as a file");
    let mut counts = Counts::default();
    let is_arm64_dll = |path: &Path| -> Result<bool, String> {
        let headers = tool_output("llvm-readobj-22", &["--file-headers"], path)?;
        Ok(headers.contains("IMAGE_FILE_MACHINE_ARM64 (0xAA64)") && headers.contains("IMAGE_FILE_DLL"))
    };
    let arm = plugin("Windows/arm64");
    counts += verdict("Windows/arm64: an arm64 DLL", is_arm64_dll(&arm)?, "");
    counts += verdict("negative control: the x64 DLL is not taken for an arm64 one", !is_arm64_dll(&plugin("Windows/x86_64"))?, "");
    let imports = tool_output("llvm-readobj-22", &["--coff-imports"], &arm)?;
    let dlls: BTreeSet<String> = imports.lines().filter_map(|l| l.trim().strip_prefix("Name: ")).map(str::to_ascii_lowercase).collect();
    // Windows' own: the kernel, the native API, the random-number provider and the API sets
    // (the synchronization calls and the Universal CRT, part of Windows from Windows 10).
    let foreign: Vec<&String> = dlls.iter().filter(|d| !(["kernel32.dll", "ntdll.dll", "bcryptprimitives.dll"].contains(&d.as_str()) || d.starts_with("api-ms-win-"))).collect();
    counts += verdict("Windows/arm64: imports only Windows' own DLLs", foreign.is_empty() && !dlls.is_empty(), &format!("{dlls:?}"));
    Ok(counts)
}

/// The WebGL library is compiled without WebAssembly threads, and the Editor's build check
/// refuses Unity's "Native C/C++ Multithreading" with `wasm-ld`'s reason
/// (`unity/Editor/PlatformRequirements.cs`): a threaded link of the committed library must
/// fail with exactly that reason. When it links, the library has become fit for threads and
/// the refusal must go (this check fails then, and says so).
fn webgl_threads_check() -> Result<Counts, String> {
    let dir = out_dir("webgl threads");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    println!("==> test_ranking_elo for WebGL with -pthread (emcc): the link must refuse the library");
    let output = Command::new("emcc")
        .args(STRICT)
        .arg(format!("-I{}", root().join("include").display()))
        .arg(source("test_ranking_elo"))
        .arg(plugin("WebGL"))
        .args(["-fwasm-exceptions", "-O1", "-pthread", "-o"])
        .arg(dir.join("test_ranking_elo.js"))
        .output()
        .map_err(|e| format!("emcc: {e}"))?;
    let said = String::from_utf8_lossy(&output.stderr).into_owned();
    let reason = "--shared-memory is disallowed by ranking_elo.o";
    let refused = !output.status.success() && said.contains(reason);
    let detail = if refused {
        format!("wasm-ld: \"{reason} because it was not compiled with 'atomics' or 'bulk-memory' features\"")
    } else if output.status.success() {
        "it LINKED: the library supports threads now, lift the refusal in PlatformRequirements.cs".to_owned()
    } else {
        said.lines().filter(|l| l.contains("error")).take(3).collect::<Vec<_>>().join(" / ")
    };
    Ok(verdict("WebGL: a threaded (-pthread) link refuses the library, as the Editor's build check says", refused, &detail))
}

/// Whether a C function's arguments have a layout that Rust's `libc` chooses from the
/// Emscripten it finds when the library is built (the `emscripten_*` cfgs of its build
/// script): `struct stat` (3.1.42), `fsblkcnt_t` in `statvfs` (4.0.12), `sigset_t` (5.0.5)
/// and `nfds_t` (6.0.1). The pattern is wider than the list (any name with `stat`).
fn layout_follows_emscripten_version(name: &str) -> bool {
    let name = name.trim_start_matches('_');
    name.contains("stat")
        || name.starts_with("sig")
        || name.starts_with("posix_spawn")
        || ["pthread_sigmask", "poll", "ppoll", "pselect", "signalfd", "epoll_pwait"].contains(&name)
}

/// The WebGL library is built with Debian's Emscripten and linked by the Emscripten of the
/// user's Unity (3.1.38 in Unity 6.0, 4.0.19 in 6.5), whose `struct stat` differs from
/// 3.1.42 on. A call of such a function compiled for one layout and linked against another
/// reads the wrong fields, so the archive must import none of them: then no Emscripten's
/// layout can matter, whichever links it (the library's other imports, such as
/// `clock_gettime` and `readdir_r`, pass structs whose layout `libc` does not vary). The
/// negative control: an object that calls `stat`, compiled by `emcc`, is caught.
fn webgl_layout_check() -> Result<Counts, String> {
    let imports = crate::archive::symbols(&plugin("WebGL"), &["--undefined-only"])?;
    let dependent: Vec<&String> = imports.iter().filter(|name| layout_follows_emscripten_version(name)).collect();
    let mut counts = verdict(
        "WebGL: imports no function whose struct layout differs between Emscripten versions (stat family, statvfs, sigset_t, poll)",
        dependent.is_empty() && !imports.is_empty(),
        &format!("{} imports, layout-dependent: {dependent:?}", imports.len()),
    );
    let dir = out_dir("webgl layout");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let control = dir.join("calls_stat.c");
    std::fs::write(&control, "#include <sys/stat.h>\nint is_file(const char *p) { struct stat s; return stat(p, &s) == 0 && S_ISREG(s.st_mode); }\n").map_err(|e| e.to_string())?;
    let object = dir.join("calls_stat.o");
    Step::new("negative control for the WebGL layout check (emcc -c)", "emcc").arg("-c").arg(&control).arg("-o").arg(&object).run()?;
    let control_imports = crate::archive::symbols(&object, &["--undefined-only"])?;
    counts += verdict(
        "negative control: an object that calls stat is caught by the same check",
        control_imports.iter().any(|name| layout_follows_emscripten_version(name)),
        &format!("{control_imports:?}"),
    );
    Ok(counts)
}

/// Every shipped binary is stripped of debug information (which lives in the symbols
/// archive: `symbols.rs`), and where `cargo xtask dist` left the debug files here, each
/// belongs to its committed binary (each with its negative control).
fn debug_information_checks() -> Result<Counts, String> {
    let mut counts = Counts::default();
    for platform in PLATFORMS {
        let path = platform.path();
        let sections = tool_output("llvm-objdump-22", &["--section-headers"], &path)?;
        let dwarf: Vec<&str> = sections.lines().filter(|l| l.contains("debug_") || l.contains("__DWARF")).filter_map(|l| l.split_whitespace().nth(1)).collect();
        counts += verdict(&format!("{}: no debug information in the shipped binary", platform.folder), dwarf.is_empty(), &dwarf.join(" "));
        if crate::symbols::debug_file(&platform).exists() {
            counts += crate::symbols::check(&platform, &path)?;
        } else {
            println!("    {}: no debug file here ({} is written by `cargo xtask dist`)", platform.folder, crate::symbols::debug_file(&platform).display());
        }
    }
    Ok(counts)
}

/// Symbols the Mach-O linker defines in every dylib it makes (the image's own header), which
/// zig's linker leaves in the export trie. They name this image only and, under macOS's
/// two-level namespace, can clash with nothing.
const MACHO_LINKER_SYMBOLS: [&str; 2] = ["__mh_dylib_header", "___dso_handle"];

/// Checks that every binary exports the header's `elo_` functions and nothing else (no
/// Rust runtime symbol that a second Rust library in the same game could collide with).
fn exports() -> Result<Counts, String> {
    let wanted = crate::header::functions()?;
    let mut counts = Counts::default();
    for platform in PLATFORMS {
        let path = platform.path();
        let apple = platform.folder.starts_with("macOS") || platform.folder.starts_with("iOS");
        // What a loader or a final link sees: a DLL's export table; the dynamic symbol
        // table of ELF shared libraries; each slice's export trie of the universal dylib;
        // the defined global symbols of the static archives.
        let listings: Vec<(String, Vec<String>)> = match platform.kind {
            _ if platform.file.ends_with(".dll") => {
                let text = tool_output("llvm-readobj-22", &["--coff-exports"], &path)?;
                vec![(platform.folder.to_owned(), text.lines().filter_map(|l| l.trim().strip_prefix("Name: ")).map(str::to_owned).collect())]
            }
            Kind::ZigShared if platform.folder.starts_with("macOS") => {
                let mut slices = Vec::new();
                for arch in ["arm64", "x86_64"] {
                    let text = tool_output("llvm-objdump-22", &["--macho", "--exports-trie", &format!("--arch={arch}")], &path)?;
                    let names = text.lines().filter(|l| l.starts_with("0x")).filter_map(|l| l.split_whitespace().nth(1)).map(str::to_owned).collect();
                    slices.push((format!("{} ({arch})", platform.folder), names));
                }
                slices
            }
            Kind::MingwShared | Kind::ZigShared | Kind::AndroidShared => {
                let text = tool_output("llvm-nm-22", &["--defined-only", "--extern-only", "--just-symbol-name", "--dynamic"], &path)?;
                vec![(platform.folder.to_owned(), text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect())]
            }
            Kind::Static(_) => {
                let text = tool_output("llvm-nm-22", &["--defined-only", "--extern-only", "--just-symbol-name"], &path)?;
                // Member headers ("ranking_elo.o:") and blank lines separate the members.
                vec![(platform.folder.to_owned(), text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.ends_with(':')).map(str::to_owned).collect())]
            }
        };
        for (label, names) in listings {
            let found: BTreeSet<String> = names
                .iter()
                .filter(|name| !(apple && MACHO_LINKER_SYMBOLS.contains(&name.as_str())))
                // Mach-O prefixes C names with one underscore.
                .map(|name| if apple { name.strip_prefix('_').unwrap_or(name) } else { name }.to_owned())
                .collect();
            let missing: Vec<&String> = wanted.difference(&found).collect();
            let extra: Vec<&String> = found.difference(&wanted).collect();
            let ok = missing.is_empty() && extra.is_empty();
            counts += verdict(
                &format!("{label} exports the header's {} functions and nothing else", wanted.len()),
                ok,
                &if ok { String::new() } else { format!("missing {missing:?}, not in the header {extra:?}") },
            );
        }
    }
    Ok(counts)
}

/// The Android library of `abi` as the NDK and the Play Store want it: every import that is
/// not weak is public in bionic at the minimum API level for the ABI; it needs only system
/// libraries; its LOAD segments are 16 KiB aligned; it has no text relocations; nothing but
/// the header's functions is exported.
fn android_checks(abi: &crate::android::Abi) -> Result<Counts, String> {
    let path = plugin(abi.folder);
    let mut counts = Counts::default();
    let bionic = crate::bionic::all_public_symbols(abi.bionic_arch, crate::bionic::MIN_API)?;
    let undefined = tool_output("llvm-nm-22", &["--dynamic", "--undefined-only"], &path)?;
    let mut missing = Vec::new();
    let mut imports = 0;
    for line in undefined.lines() {
        let mut fields = line.split_whitespace();
        let (Some(kind), Some(name)) = (fields.next(), fields.next()) else { continue };
        imports += 1;
        // `w`/`v`: weak; the library checks at run time (e.g. getrandom, API 28).
        if kind != "w" && kind != "v" && !bionic.contains_key(name) {
            missing.push(name.to_owned());
        }
    }
    counts += verdict(
        &format!("{}: every import is in bionic at API {}", abi.folder, crate::bionic::MIN_API),
        missing.is_empty() && imports > 10,
        &if missing.is_empty() { format!("{imports} imports") } else { format!("not in bionic: {missing:?}") },
    );
    let dynamic = tool_output("llvm-readobj-22", &["--dynamic-table"], &path)?;
    let needed: Vec<&str> = dynamic.lines().filter_map(|l| l.split("Shared library: [").nth(1)).map(|l| l.trim_end_matches(']')).collect();
    let system = needed.iter().all(|n| ["libc.so", "libm.so", "libdl.so"].contains(n));
    counts += verdict(&format!("{}: needs only system libraries", abi.folder), system && !needed.is_empty(), &needed.join(", "));
    counts += verdict(&format!("{}: no text relocations", abi.folder), !dynamic.contains("TEXTREL"), "");
    let soname = dynamic.contains("Library soname: [libranking_elo.so]");
    counts += verdict(&format!("{}: SONAME libranking_elo.so", abi.folder), soname, "");
    let segments = tool_output("llvm-readelf-22", &["-lW"], &path)?;
    let alignments: Vec<u64> = segments
        .lines()
        .filter(|l| l.trim_start().starts_with("LOAD"))
        .filter_map(|l| l.split_whitespace().last().and_then(|a| u64::from_str_radix(a.trim_start_matches("0x"), 16).ok()))
        .collect();
    let aligned = !alignments.is_empty() && alignments.iter().all(|a| *a >= 16384);
    counts += verdict(&format!("{}: LOAD segments aligned to 16 KiB", abi.folder), aligned, &format!("{alignments:?}"));
    let defined = tool_output("llvm-nm-22", &["--dynamic", "--defined-only", "--just-symbol-name"], &path)?;
    let others: Vec<&str> = defined.lines().map(str::trim).filter(|n| !n.is_empty() && !n.starts_with("elo_")).collect();
    counts += verdict(&format!("{}: exports nothing but the elo_ functions", abi.folder), others.is_empty(), &others.join(", "));
    Ok(counts)
}

/// The static libraries (iOS, the iOS simulator, WebGL): one object, no global symbol but
/// the `elo_` functions (so no clash with another Rust library in the same app), no
/// embedded bitcode.
fn static_archive_checks() -> Result<Counts, String> {
    let mut counts = Counts::default();
    for platform in PLATFORMS.iter().filter(|p| matches!(p.kind, Kind::Static(_))) {
        let path = platform.path();
        let members = tool_output("llvm-ar-22", &["t"], &path)?;
        let member_list: Vec<&str> = members.lines().collect();
        counts += verdict(&format!("{}: one object in the archive", platform.folder), member_list == ["ranking_elo.o"], &member_list.join(", "));
        let globals = crate::archive::symbols(&path, &["--defined-only", "--extern-only"])?;
        let others: Vec<&String> = globals.iter().filter(|n| !n.trim_start_matches('_').starts_with("elo_")).collect();
        counts += verdict(
            &format!("{}: no global symbol but the elo_ functions", platform.folder),
            others.is_empty() && !globals.is_empty(),
            &format!("{} global, others {others:?}", globals.len()),
        );
        let sections = tool_output("llvm-objdump-22", &["--section-headers"], &path)?;
        let bitcode = sections.lines().any(|l| l.contains("__bitcode") || l.contains(".llvmbc") || l.contains("__cmdline") || l.contains(".llvmcmd"));
        counts += verdict(&format!("{}: no embedded bitcode", platform.folder), !bitcode, "");
    }
    Ok(counts)
}
