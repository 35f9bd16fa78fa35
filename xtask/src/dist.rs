//! `cargo xtask dist`: builds the engine for every platform the Unity package ships, on
//! this (Linux x86-64) machine, and writes the binaries with their import settings into
//! `unity/Runtime/Plugins/<Platform>/<cpu>/`, then the UPM tarball into `target/dist/`.
//!
//! One compiler for every binary: Debian's `rustc-web` (pinned below) with its standard
//! library's source, built per target with `-Zbuild-std` (`RUSTC_BOOTSTRAP=1`), so that no
//! prebuilt standard library has to be downloaded. Linkers: zig through `cargo-zigbuild`
//! (Linux with a glibc 2.17 floor, macOS), MinGW-w64 (Windows), clang and lld against
//! bionic stubs (Android, `android.rs`). Static libraries (iOS, the iOS simulator, WebGL)
//! need no linker: they are built alone (`--crate-type staticlib`) and then rebuilt so that
//! only the `elo_` functions are global and no bitcode is left (`archive.rs`).
//!
//! What this file says is part of the engine's build id (see `build.rs`): changing a flag
//! here makes the tests ask for a new `cargo xtask dist`.

use std::path::{Path, PathBuf};

use crate::platforms::{Kind, Platform, PLATFORMS};
use crate::tools::root;
use crate::tools::{ensure, has, Step};

/// The compiler every binary is built with (Debian's `rustc-web`).
const RUSTC: &str = "/usr/bin/rustc";
/// Its cargo.
const CARGO: &str = "/usr/bin/cargo";
/// The version `RUSTC` must report.
const RUSTC_VERSION: &str = "rustc 1.96.0";
/// `cargo-zigbuild` from crates.io.
const ZIGBUILD_VERSION: &str = "0.24.1";
/// `ziglang` from PyPI (zig as a linker for Linux and macOS).
const ZIG_VERSION: &str = "0.17.1";
/// Oldest macOS the Intel slice supports (Unity 2021.3's Editor and players need 10.13).
const MACOS_X86_64_MIN: &str = "10.13";
/// Oldest macOS the Apple-silicon slice supports (the first macOS on Apple silicon).
const MACOS_ARM64_MIN: &str = "11.0";
/// Oldest iOS (Unity 2021.3 and later support iOS 12 and newer).
const IOS_MIN: &str = "12.0";
/// Oldest iOS of the Apple-silicon simulator (the first with an arm64 simulator).
const IOS_SIMULATOR_MIN: &str = "14.0";
/// The glibc floor of the Linux libraries (Unity's Linux Editor supports Ubuntu 18.04+
/// and older enterprise distributions; 2.17 is CentOS 7's).
const GLIBC_FLOOR: &str = "2.17";
/// The standard library's packages built for size (`build_target`).
const STD_FOR_SIZE: [&str; 3] = ["core", "alloc", "std"];
/// Debian packages the builds need.
pub const DIST_PACKAGES: [&str; 8] = ["rustc-web", "cargo-web", "rust-web-src", "gcc-mingw-w64-x86-64", "llvm-22", "clang-22", "lld-22", "python3-pip"];

/// `cargo xtask dist [platform folder…]`: builds every platform (or the named ones).
pub fn dist(only: &[String]) -> Result<(), String> {
    ensure_dist_tools()?;
    let started = std::time::Instant::now();
    let selected: Vec<Platform> = PLATFORMS.into_iter().filter(|p| only.is_empty() || only.iter().any(|name| name == p.folder)).collect();
    if selected.is_empty() {
        let known: Vec<&str> = PLATFORMS.iter().map(|p| p.folder).collect();
        return Err(format!("no platform matches {only:?}; known: {}", known.join(", ")));
    }
    for platform in &selected {
        let (built, debug_archive) = build(platform)?;
        let target = platform.path();
        crate::symbols::split(platform, &built, debug_archive.as_deref(), &target)?;
        crate::plugin_meta::write(platform)?;
        remove_other_binaries(platform)?;
        println!("==> {} ({} bytes)", target.strip_prefix(root()).unwrap_or(&target).display(), file_size(&target));
        let checked = crate::symbols::check(platform, &target)?;
        if checked.failed > 0 {
            return Err(format!("{}: the debug file does not match the binary", platform.folder));
        }
    }
    print_sizes();
    let tarball = package_tarball()?;
    println!("==> {}", tarball.display());
    // Every platform's debug file, each checked against the binary in the package (a dist
    // of some platforms keeps the others' files from an earlier run only while they match).
    let mut missing = Vec::new();
    for platform in &PLATFORMS {
        if !crate::symbols::matches(platform, &platform.path()) {
            let stale = crate::symbols::dir().join(platform.folder);
            let _ = std::fs::remove_dir_all(&stale);
            missing.push(platform.folder);
        }
    }
    let (name, version) = package_name_and_version()?;
    let symbols = crate::symbols::pack(&name, &version)?;
    println!("==> {}{}", symbols.display(), if missing.is_empty() { String::new() } else { format!(" (without {}: run `cargo xtask dist` for them)", missing.join(", ")) });
    println!("==> dist took {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Removes binaries of an earlier kind from the platform's folder (Android shipped `.a`
/// files before `.so`), so the package never holds two plugins for one platform.
fn remove_other_binaries(platform: &Platform) -> Result<(), String> {
    let folder = platform.path().parent().expect("plugin folder").to_path_buf();
    for entry in std::fs::read_dir(&folder).map_err(|e| e.to_string())?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let binary = name.strip_suffix(".meta").unwrap_or(&name);
        let is_binary = [".a", ".so", ".dll", ".dylib"].iter().any(|ext| binary.ends_with(ext));
        if is_binary && binary != platform.file {
            std::fs::remove_file(entry.path()).map_err(|e| format!("{}: {e}", entry.path().display()))?;
            println!("==> removed {} (not this platform's binary any more)", entry.path().strip_prefix(root()).unwrap_or(&entry.path()).display());
        }
    }
    Ok(())
}

/// The record of the binaries' sizes that `tests/committed_binaries.rs` holds them to.
const SIZES: &str = "tests/data/binary_sizes.txt";

/// Prints every binary's size against its line in [`SIZES`] (the test fails above 5%; a
/// change in size is for the person running dist to judge and record).
fn print_sizes() {
    let record = std::fs::read_to_string(root().join(SIZES)).unwrap_or_default();
    let recorded = |path: &str| -> Option<u64> {
        record.lines().filter(|l| !l.trim_start().starts_with('#')).find_map(|l| l.trim().rsplit_once(' ').filter(|(p, _)| p.trim() == path).and_then(|(_, b)| b.parse().ok()))
    };
    println!("==> sizes against {SIZES}:");
    for platform in &PLATFORMS {
        let path = platform.path();
        if !path.is_file() {
            continue;
        }
        let name = path.strip_prefix(root()).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let bytes = file_size(&path);
        match recorded(&name) {
            Some(limit) => {
                #[allow(clippy::cast_precision_loss)]
                let change = (bytes as f64 / limit as f64 - 1.0) * 100.0;
                let note = if change > 5.0 {
                    "  over the 5% the test allows: decide, then update the record"
                } else if bytes != limit {
                    "  (update the record)"
                } else {
                    ""
                };
                println!("    {name}: {bytes} bytes, recorded {limit} ({change:+.1}%){note}");
            }
            None => println!("    {name}: {bytes} bytes, not recorded: add `{name} {bytes}`"),
        }
    }
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Installs what the builds need: Debian's toolchain and MinGW, zig from PyPI and
/// cargo-zigbuild from crates.io, at the pinned versions.
fn ensure_dist_tools() -> Result<(), String> {
    ensure(RUSTC, &DIST_PACKAGES, "install Debian's rustc-web, cargo-web and rust-web-src (bookworm-updates)")?;
    ensure("x86_64-w64-mingw32-gcc", &DIST_PACKAGES, "install gcc-mingw-w64-x86-64")?;
    ensure("llvm-lipo-22", &DIST_PACKAGES, "install llvm-22")?;
    // The debug files (`symbols.rs`).
    ensure("dsymutil-22", &DIST_PACKAGES, "install llvm-22")?;
    ensure("llvm-symbolizer-22", &DIST_PACKAGES, "install llvm-22")?;
    ensure(crate::android::CLANG, &DIST_PACKAGES, "install clang-22 and lld-22")?;
    ensure("ld.lld-22", &DIST_PACKAGES, "install lld-22")?;
    let version = std::process::Command::new(RUSTC).arg("--version").output().map(|out| String::from_utf8_lossy(&out.stdout).into_owned()).unwrap_or_default();
    if !version.starts_with(RUSTC_VERSION) {
        return Err(format!("{RUSTC} is `{}`, the binaries are built with {RUSTC_VERSION}", version.trim()));
    }
    let zig_ok =
        std::process::Command::new("python3").args(["-m", "ziglang", "version"]).output().map(|out| String::from_utf8_lossy(&out.stdout).trim() == ZIG_VERSION).unwrap_or(false);
    if !zig_ok {
        Step::new("install zig (PyPI ziglang)", "python3").args(["-m", "pip", "install", "--quiet", &format!("ziglang=={ZIG_VERSION}")]).run()?;
    }
    let zigbuild_ok = std::process::Command::new(zigbuild()).arg("--version").output().map(|out| String::from_utf8_lossy(&out.stdout).contains(ZIGBUILD_VERSION)).unwrap_or(false);
    if !zigbuild_ok {
        Step::new("install cargo-zigbuild", "cargo").args(["install", "--locked", "cargo-zigbuild", "--version", ZIGBUILD_VERSION]).run()?;
    }
    if !has("tar") {
        return Err("`tar` is missing".to_owned());
    }
    Ok(())
}

/// `cargo-zigbuild` as cargo installs it.
fn zigbuild() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo"))).unwrap_or_default();
    let installed = home.join("bin/cargo-zigbuild");
    if installed.is_file() {
        installed
    } else {
        PathBuf::from("cargo-zigbuild")
    }
}

/// Where the dist builds go (kept apart from the host builds: another compiler).
fn target_dir() -> PathBuf {
    root().join("target/dist")
}

/// Builds one platform; returns the path of the finished binary, with its debug
/// information (`symbols::split` divides it), and for a static library the archive with
/// DWARF beside the finished one.
fn build(platform: &Platform) -> Result<(PathBuf, Option<PathBuf>), String> {
    let mut slices = Vec::new();
    for target in platform.targets {
        slices.push(build_target(platform, target)?);
    }
    match (platform.kind, slices.as_slice()) {
        (Kind::AndroidShared, [archive]) => {
            let abi = crate::android::abi(platform.folder).ok_or_else(|| format!("{}: no Android ABI", platform.folder))?;
            let out = target_dir().join("android").join(format!("{}.so", platform.folder.replace('/', "-")));
            crate::android::link(&abi, archive, &out)?;
            Ok((out, None))
        }
        (Kind::Static(format), [archive]) => {
            let name = platform.folder.replace('/', "-");
            let out = target_dir().join("static").join(format!("{name}.a"));
            let debug = target_dir().join("static").join(format!("{name}-debug.a"));
            crate::archive::finish_static(format, archive, &out, &debug, &target_dir().join("static").join(name))?;
            Ok((out, Some(debug)))
        }
        (_, [one]) => Ok((one.clone(), None)),
        (Kind::ZigShared, [arm, intel]) => {
            let out = target_dir().join(format!("universal-{}", platform.file));
            Step::new("lipo (macOS universal)", "llvm-lipo-22").args(["-create", "-output"]).arg(&out).arg(arm).arg(intel).run()?;
            Ok((out, None))
        }
        _ => Err(format!("{}: cannot combine {} slices", platform.folder, slices.len())),
    }
}

/// Builds the library for one Rust target with the pinned compiler.
fn build_target(platform: &Platform, target: &str) -> Result<PathBuf, String> {
    let (crate_type, zig_target) = match platform.kind {
        Kind::Static(_) | Kind::AndroidShared => ("staticlib", target.to_owned()),
        Kind::MingwShared => ("cdylib", target.to_owned()),
        Kind::ZigShared if target.contains("linux") => ("cdylib", format!("{target}.{GLIBC_FLOOR}")),
        Kind::ZigShared => ("cdylib", target.to_owned()),
    };
    let program: PathBuf = if platform.kind == Kind::ZigShared { zigbuild() } else { PathBuf::from(CARGO) };
    // Line tables in every build: `symbols::split` moves them into the debug files.
    // No file names, lines and columns of panics and `#[track_caller]` in the binary
    // (about 21 KB): the message a caught panic records never showed them, and the debug
    // files locate any address.
    let mut rustflags = vec![format!("-Cdebuginfo={}", crate::symbols::DEBUGINFO), "-Zlocation-detail=none".to_owned()];
    // We strip, after keeping the debug information apart (`symbols.rs`).
    let strip = ("CARGO_PROFILE_RELEASE_STRIP", "false");
    let mut step = Step::new(&format!("build {target} ({crate_type})"), &program)
        .args(["rustc", "--release", "--package", "ranking-elo", "--lib", "--crate-type", crate_type, "--target", &zig_target])
        // The standard library without its `backtrace` feature: a panic caught at the C
        // boundary (`src/ffi/panic.rs`) still unwinds and is reported, but std no longer
        // links a DWARF symbolizer (gimli, addr2line, miniz_oxide, rustc-demangle: about
        // 240 KB of a shared library) to print backtraces under `RUST_BACKTRACE`, which
        // no host of the plugin sets (see BENCHMARKS.md, "Binary sizes").
        .args(["-Zbuild-std=std,panic_unwind", "-Zbuild-std-features=panic-unwind"])
        // The standard library compiled for size, as the JSON crates are (Cargo.toml): its
        // own code is formatting, panics and I/O (about 18 KB smaller); what the engine
        // uses of it is generic (slices, sorting, collections) and compiled in the engine,
        // at opt-level 3. (These packages exist only in a `-Zbuild-std` build, so the
        // setting is here, not in Cargo.toml.)
        .args(STD_FOR_SIZE.iter().flat_map(|package| ["--config".to_owned(), format!("profile.release.package.{package}.opt-level=\"z\"")]))
        .arg("--target-dir")
        .arg(target_dir())
        .env("RUSTC", RUSTC)
        .env("CARGO", CARGO)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("MACOSX_DEPLOYMENT_TARGET", if target.starts_with("x86_64") { MACOS_X86_64_MIN } else { MACOS_ARM64_MIN })
        .env("IPHONEOS_DEPLOYMENT_TARGET", if target.ends_with("-sim") { IOS_SIMULATOR_MIN } else { IOS_MIN })
        // The generated header and C# file are written by the host build only.
        .env("RANKING_ELO_FREEZE_GENERATED", "1")
        .env(strip.0, strip.1)
        .env("PATH", dist_path());
    match platform.kind {
        Kind::MingwShared => {
            step = step.env("CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER", "x86_64-w64-mingw32-gcc");
            // No libgcc or winpthread DLLs beside the plugin.
            rustflags.push("-Ctarget-feature=+crt-static".to_owned());
            rustflags.push("-Clink-arg=-static".to_owned());
            // A CodeView record with a GUID: what ties the DLL to its debug file.
            rustflags.push("-Clink-arg=-Wl,--build-id".to_owned());
        }
        Kind::ZigShared if target.contains("apple") => {
            // Unity loads the plugin by path; `@rpath` is the conventional install name.
            rustflags.push("-Clink-arg=-Wl,-install_name,@rpath/libranking_elo.dylib".to_owned());
            // The linker writes a debug map (stabs naming the objects, which rustc keeps
            // beside the build) for dsymutil; `symbols::split` then removes it and the local
            // symbols, as `ld -S -x` would, and llvm-objcopy signs the image again.
            rustflags.push("-Csplit-debuginfo=unpacked".to_owned());
            rustflags.push("-Clink-arg=-Wl,-dead_strip".to_owned());
            // zig's Mach-O linker ignores rustc's `-exported_symbols_list`, so every symbol
            // the LTO keeps external would be exported (`rust_eh_personality` and a std
            // static were). Hidden by default, only the `#[no_mangle]` C functions keep
            // default visibility: the dylib exports the header's functions and nothing of
            // Rust's (`binaries.rs` checks the export trie of both slices).
            rustflags.push("-Zdefault-visibility=hidden".to_owned());
        }
        Kind::ZigShared => {
            // The id that ties the binary to its debug file (a GNU build id note in ELF, a
            // CodeView record in a DLL).
            rustflags.push(format!("-Clink-arg=-Wl,--build-id{}", if target.contains("windows") { "" } else { "=sha1" }));
            if target.contains("windows") {
                // rustc hands its export list to the linker as `-Wl,list.def`, which zig
                // refuses as a linker argument and cargo-zigbuild drops; without a module
                // definition LLD's MinGW driver exports every global symbol (std's,
                // libunwind's, the CRT's: `exports` in binaries.rs caught eight). zig takes a
                // `.def` file as an input: the header's functions.
                rustflags.push(format!("-Clink-arg={}", exports_def()?.display()));
            }
        }
        // The archive keeps its symbol table for the link that follows (ours for Android;
        // Xcode's or Emscripten's for the others).
        Kind::Static(_) | Kind::AndroidShared => {}
    }
    step.env("CARGO_ENCODED_RUSTFLAGS", rustflags.join("\u{1f}")).run()?;
    let name = match (crate_type, target.contains("windows")) {
        ("cdylib", true) => "ranking_elo.dll".to_owned(),
        ("cdylib", false) if target.contains("apple") => "libranking_elo.dylib".to_owned(),
        ("cdylib", false) => "libranking_elo.so".to_owned(),
        _ => "libranking_elo.a".to_owned(),
    };
    let built = target_dir().join(target).join("release").join(name);
    if built.is_file() {
        Ok(built)
    } else {
        Err(format!("{target}: {} was not produced", built.display()))
    }
}

/// `target/dist/ranking_elo.def`: a module-definition file exporting the header's
/// functions, for the DLL zig links.
fn exports_def() -> Result<PathBuf, String> {
    let mut text = String::from("EXPORTS\n");
    for function in crate::header::functions()? {
        text.push_str(&format!("    {function}\n"));
    }
    let path = target_dir().join("ranking_elo.def");
    std::fs::create_dir_all(target_dir()).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// PATH for the dist builds: Debian's toolchain before rustup's, zig's folder (from PyPI).
fn dist_path() -> String {
    let zig_dir = std::process::Command::new("python3")
        .args(["-c", "import ziglang, os; print(os.path.dirname(ziglang.__file__))"])
        .output()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default();
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("/usr/bin:{zig_dir}:{rest}")
}

/// The package's name and version (`unity/package.json`).
fn package_name_and_version() -> Result<(String, String), String> {
    let manifest = std::fs::read_to_string(root().join("unity/package.json")).map_err(|e| e.to_string())?;
    let field = |name: &str| -> Result<String, String> {
        let key = format!("\"{name}\"");
        let at = manifest.find(&key).ok_or(format!("package.json has no {name}"))? + key.len();
        let rest = &manifest[at..];
        let start = rest.find('"').ok_or("bad package.json")? + 1;
        let end = rest[start..].find('"').ok_or("bad package.json")? + start;
        Ok(rest[start..end].to_owned())
    };
    Ok((field("name")?, field("version")?))
}

/// Writes `target/dist/<name>-<version>.tgz`: the Unity package as npm packs it (files
/// under `package/`), installable with "Add package from tarball". Deterministic: sorted
/// names, fixed times and owners.
pub fn package_tarball() -> Result<PathBuf, String> {
    let (name, version) = package_name_and_version()?;
    let out = target_dir().join(format!("{name}-{version}.tgz"));
    std::fs::create_dir_all(target_dir()).map_err(|e| e.to_string())?;
    Step::new("UPM tarball", "tar")
        .args(["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "--transform=s,^unity,package,"])
        .args(["--exclude=*.tmp", "--use-compress-program=gzip -n", "-cf"])
        .arg(&out)
        .arg("unity")
        .run()?;
    Ok(out)
}
