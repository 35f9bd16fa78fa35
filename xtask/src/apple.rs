//! The Apple binaries (macOS universal dylib, iOS device and simulator static libraries),
//! which cannot run natively here.
//!
//! * **Runs, emulated.** The C test programs are compiled for the binary's platform
//!   (`clang-22` with the Darwin C headers PyPI's `ziglang` ships) and linked by `ld64.lld`
//!   against the binary and a copy of macOS's libSystem export list (also from `ziglang`,
//!   retargeted to the platform): an import libSystem does not export fails the link. The
//!   program then runs in Unicorn (`tests/fixtures/darwin_run.py`), which serves libSystem's functions
//!   (see that file for what stands in for Darwin). For macOS the shipped dylib is loaded
//!   beside the program unchanged; the iOS libraries are linked into it, as Xcode would.
//! * **Checks.** The dylib's code signature is verified twice, by our own page-hash check
//!   (`tests/fixtures/macho_signature.py`) and by `rcodesign` (crate `apple-codesign`), each with a
//!   flipped byte in `__text` as negative control; load commands (platform, minimum OS,
//!   install name); the privacy manifest against the iOS library's imports.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::thread::JoinHandle;

use crate::harness::{out_dir, plugin, source, tool_output, verdict, Execution, Runnable, STRICT};
use crate::tools::root;
use crate::tools::{Counts, Step};

/// Python packages the emulated runs need (pinned), and zig for Darwin's headers and
/// libSystem's export list.
const PYTHON_PACKAGES: [&str; 3] = ["unicorn==2.1.4", "lief==1.0.0", "ziglang==0.17.1"];

/// `rcodesign`, pinned; built from crates.io (about 5 minutes on 2 cores), kept under
/// `target/tools` between runs.
const RCODESIGN_VERSION: &str = "0.29.0";

/// Installs the Python packages when missing.
pub fn ensure_python_tools() -> Result<(), String> {
    let present = Command::new("python3").args(["-c", "import unicorn, lief, ziglang; assert unicorn.__version__ == '2.1.4'"]).output().is_ok_and(|o| o.status.success());
    if !present {
        Step::new("install unicorn, lief and ziglang (PyPI)", "python3").args(["-m", "pip", "install", "--quiet"]).args(PYTHON_PACKAGES).run()?;
    }
    Ok(())
}

/// The Apple platforms as their C programs are built for them.
#[derive(Clone, Copy)]
enum Platform {
    MacOs,
    Ios,
    IosSimulator,
}

impl Platform {
    /// `clang`'s OS part of the target triple.
    fn clang_os(self, min: &str) -> String {
        match self {
            Platform::MacOs => format!("macos{min}"),
            Platform::Ios => format!("ios{min}"),
            Platform::IosSimulator => format!("ios{min}-simulator"),
        }
    }

    /// `ld64.lld`'s `-platform_version` name.
    fn ld_name(self) -> &'static str {
        match self {
            Platform::MacOs => "macos",
            Platform::Ios => "ios",
            Platform::IosSimulator => "ios-simulator",
        }
    }

    /// The TAPI target of libSystem's export list for `arch`.
    fn tapi_target(self, arch: &str) -> String {
        match self {
            Platform::MacOs => format!("{arch}-macos"),
            Platform::Ios => format!("{arch}-ios"),
            Platform::IosSimulator => format!("{arch}-ios-simulator"),
        }
    }
}

/// One Apple binary run in the emulator.
struct Emulated {
    title: String,
    arch: &'static str,
    platform: Platform,
    min: &'static str,
    /// The macOS dylib slice loaded beside the program, or the static library linked in.
    library: PathBuf,
    dynamic: bool,
    dir: PathBuf,
}

/// The emulated runs: both slices of the macOS library, the iOS device and simulator
/// libraries.
pub fn emulated() -> Result<Vec<Box<dyn Runnable>>, String> {
    let mut runs: Vec<Box<dyn Runnable>> = Vec::new();
    let universal = plugin("macOS/universal");
    for (arch, min) in [("arm64", "11.0"), ("x86_64", "10.13")] {
        let title = format!("macOS {arch} (committed .dylib slice, Unicorn)");
        let dir = out_dir(&title);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        let slice = dir.join("libranking_elo.dylib");
        Step::new(&format!("the {arch} slice of the macOS library"), "llvm-lipo-22").args(["-thin", arch, "-output"]).arg(&slice).arg(&universal).quiet().run()?;
        runs.push(Box::new(Emulated { title, arch, platform: Platform::MacOs, min, library: slice, dynamic: true, dir }));
    }
    for (folder, platform, min) in [("iOS/arm64", Platform::Ios, "12.0"), ("iOS/arm64-simulator", Platform::IosSimulator, "14.0")] {
        let title = format!("{folder} (committed .a linked by ld64.lld, Unicorn)");
        let dir = out_dir(&title);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
        runs.push(Box::new(Emulated { title, arch: "arm64", platform, min, library: plugin(folder), dynamic: false, dir }));
    }
    Ok(runs)
}

impl Emulated {
    /// Compiles and links `program` for this platform; returns the executable.
    fn build(&self, program: &str) -> Result<PathBuf, String> {
        let zig = crate::android::zig_lib()?;
        let object = self.dir.join(format!("{program}.o"));
        Step::new(&format!("{program} for {} (clang-22)", self.title), "clang-22")
            .arg(format!("--target={}-apple-{}", self.arch, self.platform.clang_os(self.min)))
            .args(STRICT)
            // The emulator serves no stack protector.
            .args(["-O1", "-fno-stack-protector", "-nostdlibinc", "-isystem"])
            .arg(zig.join("libc/include/any-darwin-any"))
            .arg(format!("-I{}", root().join("include").display()))
            .arg("-c")
            .arg(source(program))
            .arg("-o")
            .arg(&object)
            .run()?;
        let tbd = self.dir.join("libSystem.tbd");
        libsystem_for(&zig.join("libc/darwin/libSystem.tbd"), &self.platform.tapi_target(self.arch), &tbd)?;
        let exe = self.dir.join(program);
        Step::new(&format!("{program} for {} (ld64.lld: every import must be in libSystem)", self.title), "ld64.lld-22")
            .args(["-arch", self.arch, "-platform_version", self.platform.ld_name(), self.min, self.min])
            // Classic dyld binding information (what the emulator reads).
            .arg("-no_fixup_chains")
            .arg("-o")
            .arg(&exe)
            .arg(&object)
            .arg(&self.library)
            .arg(&tbd)
            .run()?;
        Ok(exe)
    }
}

impl Runnable for Emulated {
    fn title(&self) -> String {
        self.title.clone()
    }

    fn execute(&self, program: &str, args: &[PathBuf]) -> Result<Execution, String> {
        let exe = self.dir.join(program);
        if !exe.exists() {
            self.build(program)?;
        }
        let mut command = Command::new("python3");
        command.arg(root().join("tests/fixtures/darwin_run.py"));
        if self.dynamic {
            command.arg("--library").arg(&self.library);
        }
        command.arg(&exe).args(args).current_dir(&self.dir);
        let output = command.output().map_err(|e| format!("python3: {e}"))?;
        Ok(Execution {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        })
    }
}

/// Writes `out`: libSystem's TAPI export list (`source`, macOS's, from zig) restricted to
/// one target, under that target's name: the symbols of the list's arm64 (or x86_64)
/// sections, which is what an app links against on Apple's platforms (iOS's libSystem
/// exports the same C library functions; a macOS-only function would pass here).
fn libsystem_for(source: &Path, target: &str, out: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(source).map_err(|e| format!("{}: {e}", source.display()))?;
    let arch = target.split('-').next().unwrap_or_default();
    let mut result = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("targets:") {
        let open = rest[at..].find('[').map(|i| at + i).ok_or("a targets list without [")?;
        let close = rest[open..].find(']').map(|i| open + i).ok_or("a targets list without ]")?;
        let list: Vec<&str> = rest[open + 1..close].split(',').map(str::trim).filter(|t| !t.is_empty()).collect();
        // arm64 platforms read the arm64e entries; anything else keeps an entry that names
        // another architecture, so the section is ignored for this target.
        let mine = list.iter().any(|t| t.starts_with(&format!("{arch}-macos")) || t.starts_with(&format!("{arch}e-macos")));
        let other = if arch == "x86_64" { "arm64-macos" } else { "x86_64-macos" };
        result.push_str(&rest[..open]);
        result.push_str(&format!("[ {} ]", if mine { target } else { other }));
        rest = &rest[close + 1..];
    }
    result.push_str(rest);
    std::fs::write(out, result).map_err(|e| e.to_string())
}

static RCODESIGN: Mutex<Option<JoinHandle<Result<PathBuf, String>>>> = Mutex::new(None);

/// Starts installing `rcodesign` in the background (if it is not installed yet), so that its
/// build overlaps the rest of the test command.
pub fn prefetch_rcodesign() {
    let mut slot = RCODESIGN.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if slot.is_none() {
        *slot = Some(std::thread::spawn(install_rcodesign));
    }
}

/// `rcodesign`, installed under `target/tools` when missing.
fn rcodesign() -> Result<PathBuf, String> {
    let handle = RCODESIGN.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
    match handle {
        Some(handle) => handle.join().map_err(|_| "the rcodesign install panicked".to_owned())?,
        None => install_rcodesign(),
    }
}

fn install_rcodesign() -> Result<PathBuf, String> {
    let prefix = root().join("target/tools/apple-codesign");
    let binary = prefix.join("bin/rcodesign");
    let installed = Command::new(&binary).arg("--version").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(RCODESIGN_VERSION));
    if !installed {
        let log = root().join("target/tools/apple-codesign.log");
        std::fs::create_dir_all(&prefix).map_err(|e| e.to_string())?;
        let file = std::fs::File::create(&log).map_err(|e| e.to_string())?;
        println!("==> install rcodesign {RCODESIGN_VERSION} (cargo install apple-codesign, in the background; log: {})", log.display());
        let status = Command::new("cargo")
            .args(["install", "apple-codesign", "--version", RCODESIGN_VERSION, "--no-default-features", "--locked", "--root"])
            .arg(&prefix)
            .stdout(file.try_clone().map_err(|e| e.to_string())?)
            .stderr(file)
            .status()
            .map_err(|e| format!("cargo install apple-codesign: {e}"))?;
        if !status.success() {
            return Err(format!("cargo install apple-codesign failed ({status}); see {}", log.display()));
        }
    }
    Ok(binary)
}

/// The checks of the Apple binaries beside the runs.
pub fn checks() -> Result<Counts, String> {
    let mut counts = Counts::default();
    let universal = plugin("macOS/universal");
    let work = out_dir("apple checks");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let arm = work.join("arm64.dylib");
    Step::new("the arm64 slice of the macOS library", "llvm-lipo-22").args(["-thin", "arm64", "-output"]).arg(&arm).arg(&universal).quiet().run()?;
    let tampered = work.join("arm64-tampered.dylib");
    flip_text_byte(&arm, &tampered)?;

    // Our own page-hash check, and its negative control.
    for (file, must_pass) in [(&universal, true), (&tampered, false)] {
        let run = Command::new("python3").arg(root().join("tests/fixtures/macho_signature.py")).arg(file).output().map_err(|e| format!("python3: {e}"))?;
        let report = String::from_utf8_lossy(&run.stdout).trim().replace('\n', "; ");
        let what = if must_pass {
            "macOS signature matches every page (tests/fixtures/macho_signature.py)"
        } else {
            "a flipped byte in __text breaks the signature (tests/fixtures/macho_signature.py)"
        };
        counts += verdict(what, run.status.success() == must_pass, &report);
    }
    // rcodesign: an ad-hoc signature has no CMS blob, so it always exits 1 ("no
    // cryptographic signature"); a broken file is reported as a digest mismatch.
    let rcodesign = rcodesign()?;
    for (file, must_pass) in [(&arm, true), (&tampered, false)] {
        let run = Command::new(&rcodesign).arg("verify").arg(file).output().map_err(|e| format!("rcodesign: {e}"))?;
        let report = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
        let broken = report.contains("mismatch");
        let understood = report.contains("signature") || report.contains("digest");
        let what = if must_pass { "rcodesign verify: the arm64 slice's code digests match" } else { "rcodesign verify: a flipped byte in __text is a digest mismatch" };
        let line = report.lines().find(|l| l.contains("mismatch")).unwrap_or_else(|| report.lines().last().unwrap_or_default());
        counts += verdict(what, understood && broken != must_pass, line.trim());
    }

    let headers = tool_output("llvm-objdump-22", &["--macho", "--private-headers", "--arch=all"], &universal)?;
    for (what, needle) in [
        ("macOS install name @rpath", "name @rpath/libranking_elo.dylib"),
        ("macOS arm64 slice for macOS 11", "minos 11.0"),
        ("macOS x86_64 slice for macOS 10.13", "version 10.13"),
    ] {
        counts += verdict(what, headers.contains(needle), "");
    }
    for (folder, platform, min) in [("iOS/arm64", "platform ios\n", "minos 12.0"), ("iOS/arm64-simulator", "platform iossimulator", "minos 14.0")] {
        let text = tool_output("llvm-objdump-22", &["--macho", "--private-headers"], &plugin(folder))?;
        counts += verdict(&format!("{folder}: built for {} {}", platform.trim(), min.trim_start_matches("minos ")), text.contains(platform) && text.contains(min), "");
    }
    counts += privacy_manifest()?;
    Ok(counts)
}

/// Writes `out`: `slice` with one byte in the middle of `__text` flipped.
fn flip_text_byte(slice: &Path, out: &Path) -> Result<(), String> {
    let sections = tool_output("llvm-objdump-22", &["--macho", "--section-headers"], slice)?;
    let line = sections.lines().find(|l| l.split_whitespace().nth(1) == Some("__text")).ok_or("no __text section")?;
    let fields: Vec<&str> = line.split_whitespace().collect();
    let size = u64::from_str_radix(fields[2], 16).map_err(|e| e.to_string())?;
    let address = u64::from_str_radix(fields[3], 16).map_err(|e| e.to_string())?;
    let mut bytes = std::fs::read(slice).map_err(|e| e.to_string())?;
    // The dylib's __TEXT starts at file offset 0 and address 0.
    let at = usize::try_from(address + size / 2).map_err(|e| e.to_string())?;
    bytes[at] ^= 0xFF;
    std::fs::write(out, bytes).map_err(|e| e.to_string())
}

/// Apple's required-reason API categories, by the C functions that fall in them.
const REQUIRED_REASON_APIS: [(&str, &[&str]); 3] = [
    ("NSPrivacyAccessedAPICategoryFileTimestamp", &["stat", "fstat", "fstatat", "lstat", "getattrlist", "fgetattrlist", "getattrlistat", "getattrlistbulk"]),
    ("NSPrivacyAccessedAPICategorySystemBootTime", &["mach_absolute_time"]),
    ("NSPrivacyAccessedAPICategoryDiskSpace", &["statfs", "statvfs", "fstatfs", "fstatvfs"]),
];

/// The package's privacy manifest declares every required-reason category the iOS
/// libraries' imports fall in (with a reason), and no other.
fn privacy_manifest() -> Result<Counts, String> {
    let path = root().join("unity/Runtime/Plugins/iOS/PrivacyInfo.xcprivacy");
    let manifest = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e} (the iOS privacy manifest ships with the package)", path.display()))?;
    let mut counts = Counts::default();
    for folder in ["iOS/arm64", "iOS/arm64-simulator"] {
        let imports = crate::archive::symbols(&plugin(folder), &["--undefined-only"])?;
        let mut needed = Vec::new();
        for (category, functions) in REQUIRED_REASON_APIS {
            let used: Vec<&str> = functions.iter().copied().filter(|f| imports.contains(&format!("_{f}"))).collect();
            let declared = manifest.contains(&format!("<string>{category}</string>"));
            if !used.is_empty() {
                needed.push(format!("{category} ({})", used.join(", ")));
            }
            counts += verdict(
                &format!("{folder}: privacy manifest {} {category}", if used.is_empty() { "does not need" } else { "declares" }),
                declared != used.is_empty(),
                &used.join(", "),
            );
        }
        println!("    {folder}: required-reason APIs used: {}", if needed.is_empty() { "none".to_owned() } else { needed.join("; ") });
    }
    let reasons = manifest.matches("<key>NSPrivacyAccessedAPITypeReasons</key>").count();
    counts += verdict("privacy manifest gives a reason for each category", reasons == manifest.matches("<key>NSPrivacyAccessedAPIType</key>").count() && reasons > 0, "");
    Ok(counts)
}
