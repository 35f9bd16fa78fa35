//! The static libraries the package ships (iOS, the iOS simulator, WebGL), made fit to be
//! linked into an app beside other static libraries (`cargo xtask dist`).
//!
//! `rustc --crate-type staticlib` writes an archive with the engine's object (the crate,
//! the standard library and serde after LTO) and a `compiler_builtins` object, and every
//! Rust symbol in them is global: `rust_eh_personality`, the standard library's statics,
//! `compiler_builtins`' mangled functions. A second Rust static library in the same app
//! (another plugin) defines the same names and the final link (Xcode, Emscripten) stops
//! with duplicate symbols. So the archive is rebuilt:
//!
//! * only the engine's object is kept: the final link takes what it imports from the
//!   platform (libSystem on Apple platforms; Emscripten's libc and compiler-rt on WebGL),
//!   and anything it would need from the dropped `compiler_builtins` object stops the build
//!   unless the platform's link provides it (`PLATFORM_BUILTINS`);
//! * every defined symbol but the `elo_` functions becomes local (`llvm-objcopy
//!   --keep-global-symbol` for Mach-O; for WebAssembly, whose `llvm-objcopy` cannot change
//!   symbols, `wasm_object.rs` sets the binding in the object's symbol table);
//! * embedded LLVM bitcode (`__LLVM,__bitcode`, `.llvmbc`) and the command lines beside it
//!   are removed: nothing uses them, and Xcode 14 and later reject bitcode.

use std::collections::BTreeSet;
use std::path::Path;

use crate::tools::Step;

/// The object file format of a static library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// ELF (Android, before the shared-library link).
    Elf,
    /// Mach-O (iOS, the iOS simulator).
    MachO,
    /// WebAssembly (WebGL).
    Wasm,
}

impl Format {
    /// `llvm-objcopy` arguments that remove embedded bitcode and the command line beside it.
    fn strip_bitcode_args(self) -> [&'static str; 2] {
        match self {
            Format::MachO => ["--remove-section=__LLVM,__bitcode", "--remove-section=__LLVM,__cmdline"],
            Format::Elf | Format::Wasm => ["--remove-section=.llvmbc", "--remove-section=.llvmcmd"],
        }
    }

    /// How a symbol name is spelled in the object (Mach-O prefixes an underscore).
    pub fn symbol(self, name: &str) -> String {
        if self == Format::MachO {
            format!("_{name}")
        } else {
            name.to_owned()
        }
    }

    /// Functions the platform's final link provides that the engine's object may import
    /// although `compiler_builtins` defines them too: Emscripten links its compiler-rt and
    /// libc into every program. (Apple's list is empty: the object must need nothing but
    /// libSystem, which `cargo xtask test` checks by linking it against libSystem alone.)
    fn platform_builtins(self) -> &'static [&'static str] {
        match self {
            Format::Wasm => &[
                "__multi3",
                "__lshrti3",
                "__ashlti3",
                "__udivti3",
                "__umodti3",
                "__divti3",
                "__modti3",
                "round",
                "roundf",
                "fmod",
                "fmodf",
                "memcpy",
                "memmove",
                "memset",
                "memcmp",
            ],
            Format::Elf | Format::MachO => &[],
        }
    }
}

/// Copies `input` (an archive or object of `format`) to `output` without embedded bitcode.
pub fn strip_bitcode(format: Format, input: &Path, output: &Path) -> Result<(), String> {
    Step::new(&format!("remove embedded bitcode ({})", input.file_name().unwrap_or_default().to_string_lossy()), "llvm-objcopy-22")
        .args(format.strip_bitcode_args())
        .arg(input)
        .arg(output)
        .run()
}

/// Rebuilds the static library `built` into `out` as the module docs describe, and into
/// `debug_out` the same with the engine's DWARF (the symbols archive's copy, `symbols.rs`).
pub fn finish_static(format: Format, built: &Path, out: &Path, debug_out: &Path, work: &Path) -> Result<(), String> {
    if work.exists() {
        std::fs::remove_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    std::fs::create_dir_all(work).map_err(|e| format!("{}: {e}", work.display()))?;
    Step::new("unpack the static library", "llvm-ar-22").arg("x").arg(built).current_dir(work).run()?;
    let mut engine = None;
    let mut dropped = Vec::new();
    for entry in std::fs::read_dir(work).map_err(|e| e.to_string())?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("ranking_elo-") && name.ends_with(".o") {
            if engine.replace(entry.path()).is_some() {
                return Err(format!("{}: more than one engine object (is codegen-units 1?)", built.display()));
            }
        } else {
            dropped.push(entry.path());
        }
    }
    let engine = engine.ok_or_else(|| format!("{}: no ranking_elo object", built.display()))?;
    check_self_contained(format, &engine, &dropped)?;
    let stripped = work.join("ranking_elo.o");
    let mut objcopy = Step::new("localize every symbol but the elo_ functions; remove bitcode", "llvm-objcopy-22").args(format.strip_bitcode_args());
    if format == Format::MachO {
        objcopy = objcopy.arg("--wildcard").arg(format!("--keep-global-symbol={}", format.symbol("elo_*")));
    }
    objcopy.arg(&engine).arg(&stripped).run()?;
    if format == Format::Wasm {
        let bytes = std::fs::read(&stripped).map_err(|e| e.to_string())?;
        let (patched, localized) = crate::wasm_object::localize(&bytes, |name| name.starts_with("elo_"))?;
        println!("    {localized} WebAssembly symbols made local");
        std::fs::write(&stripped, patched).map_err(|e| e.to_string())?;
    }
    let archive_format = if format == Format::MachO { "--format=darwin" } else { "--format=gnu" };
    let pack = |what: &str, dir: &Path, archive: &Path| -> Result<(), String> {
        if archive.exists() {
            std::fs::remove_file(archive).map_err(|e| e.to_string())?;
        }
        Step::new(what, "llvm-ar-22").arg(archive_format).arg("rcsD").arg(archive).arg("ranking_elo.o").current_dir(dir).run()
    };
    let debug_dir = work.join("debug");
    std::fs::create_dir_all(&debug_dir).map_err(|e| e.to_string())?;
    std::fs::copy(&stripped, debug_dir.join("ranking_elo.o")).map_err(|e| e.to_string())?;
    pack("pack the static library with its DWARF (symbols)", &debug_dir, debug_out)?;
    // The shipped object: the same code without the DWARF sections.
    Step::new("remove the DWARF from the shipped object", "llvm-objcopy-22").arg("--strip-debug").arg(&stripped).run()?;
    pack("pack the static library", work, out)
}

/// Fails when the engine's object imports something only the dropped objects define (and
/// the platform's final link does not provide).
fn check_self_contained(format: Format, engine: &Path, dropped: &[std::path::PathBuf]) -> Result<(), String> {
    let imports = symbols(engine, &["--undefined-only"])?;
    let mut provided = BTreeSet::new();
    for object in dropped {
        provided.extend(symbols(object, &["--defined-only", "--extern-only"])?);
    }
    let allowed: BTreeSet<String> = format.platform_builtins().iter().map(|n| format.symbol(n)).collect();
    let missing: Vec<&String> = imports.iter().filter(|s| provided.contains(*s) && !allowed.contains(*s)).collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} imports {missing:?} from compiler_builtins, which the shipped archive leaves out: \
             avoid the operation in the engine (e.g. 128-bit integer <-> float casts) or add the name \
             to Format::platform_builtins if the platform's link provides it",
            engine.display()
        ))
    }
}

/// Symbol names `llvm-nm` lists for `object` with `filter` arguments.
pub fn symbols(object: &Path, filter: &[&str]) -> Result<BTreeSet<String>, String> {
    let output = std::process::Command::new("llvm-nm-22").args(filter).arg("--just-symbol-name").arg(object).output().map_err(|e| format!("llvm-nm-22: {e}"))?;
    if !output.status.success() {
        return Err(format!("llvm-nm-22 {}: {}", object.display(), String::from_utf8_lossy(&output.stderr)));
    }
    Ok(String::from_utf8_lossy(&output.stdout).lines().map(str::trim).filter(|l| !l.is_empty() && !l.ends_with(':')).map(str::to_owned).collect())
}
