//! Crash symbolication: the debug information of every shipped binary, kept apart from it.
//!
//! `cargo xtask dist` builds every binary with line tables (`-Cdebuginfo=line-tables-only`:
//! function names, file and line of every instruction, and the inlined calls), then splits
//! each into the binary the package ships, without debug information, and a debug file that
//! `target/dist/<package>-<version>-symbols.tgz` collects beside the UPM tarball:
//!
//! | binary | debug file | what ties them |
//! |---|---|---|
//! | ELF (Linux, Android) | `<file>.debug` (`llvm-objcopy --only-keep-debug`; the binary keeps a `.gnu_debuglink`) | the GNU build id note, the same in both |
//! | PE (Windows x64, Arm64) | `<file>.debug` (DWARF, as above) | the CodeView record's GUID and age (the linker's `--build-id`) |
//! | Mach-O (macOS, both slices) | `<file>.dSYM` (`dsymutil` from the linker's debug map) | each slice's `LC_UUID` |
//! | static libraries (iOS, iOS simulator, WebGL) | the same archive with its DWARF (`libranking_elo.a`) | the same machine code, byte for byte |
//!
//! A static library's debug information only helps once it is linked into the app (Xcode's
//! link for iOS, Emscripten's for WebGL): the app's own dSYM, or the WebAssembly module's
//! DWARF, then covers the engine. The shipped WebGL object keeps its function names (every
//! relocatable WebAssembly object has a symbol table), so a Unity Web build's name section and
//! its symbols file name the engine's functions without the debug archive.
//!
//! `check` proves that each debug file belongs to its binary (the same id, line tables, and
//! an exported function's address in the binary resolved to that function's name through the
//! debug file by `llvm-symbolizer`); its negative control is a copy of the binary with one
//! byte of its id flipped, which must not match.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{tool_output, verdict};
use crate::platforms::{Kind, Platform};
use crate::tools::{Counts, Step};

/// How much debug information the binaries are built with (rustc's `-Cdebuginfo`).
pub const DEBUGINFO: &str = "line-tables-only";

/// The folder of the debug files, one subfolder per platform as under `Plugins/`.
pub fn dir() -> PathBuf {
    crate::tools::root().join("target/dist/symbols")
}

/// The debug file (or dSYM bundle) of `platform`.
pub fn debug_file(platform: &Platform) -> PathBuf {
    let name = match platform.kind {
        Kind::Static(_) => platform.file.to_owned(),
        _ if platform.file.ends_with(".dylib") => format!("{}.dSYM", platform.file),
        _ => format!("{}.debug", platform.file),
    };
    dir().join(platform.folder).join(name)
}

/// The file inside a dSYM bundle that holds the DWARF.
fn dsym_dwarf(bundle: &Path, file: &str) -> PathBuf {
    bundle.join("Contents/Resources/DWARF").join(file)
}

/// Splits `built` (linked with debug information) into the shipped binary `shipped` and
/// `platform`'s debug file. Static libraries come split already (`archive::finish_static`
/// writes both); `debug_archive` is then the one with DWARF.
pub fn split(platform: &Platform, built: &Path, debug_archive: Option<&Path>, shipped: &Path) -> Result<(), String> {
    let debug = debug_file(platform);
    let folder = debug.parent().expect("a platform folder");
    if folder.exists() {
        std::fs::remove_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    }
    std::fs::create_dir_all(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    if let Some(parent) = shipped.parent() {
        std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
    }
    match (platform.kind, debug_archive) {
        (Kind::Static(_), Some(archive)) => {
            std::fs::copy(built, shipped).map_err(|e| format!("copy {}: {e}", built.display()))?;
            std::fs::copy(archive, &debug).map_err(|e| format!("copy {}: {e}", archive.display()))?;
            Ok(())
        }
        (Kind::Static(_), None) => Err(format!("{}: no debug archive", platform.folder)),
        _ if platform.file.ends_with(".dylib") => {
            // dsymutil follows the linker's debug map (the objects rustc kept beside the
            // build, `-Csplit-debuginfo=unpacked`) and writes one DWARF slice per CPU.
            // For a universal binary it joins the slices with `lipo`, by that name: LLVM's.
            let tools = crate::tools::root().join("target/dist/tools");
            std::fs::create_dir_all(&tools).map_err(|e| e.to_string())?;
            let lipo = tools.join("lipo");
            if !lipo.exists() {
                std::fs::copy("/usr/bin/llvm-lipo-22", &lipo).map_err(|e| format!("{}: {e}", lipo.display()))?;
            }
            let path = format!("{}:{}", tools.display(), std::env::var("PATH").unwrap_or_default());
            // The bundle's DWARF file takes the binary's file name.
            let named = tools.join(platform.file);
            std::fs::copy(built, &named).map_err(|e| format!("copy {}: {e}", built.display()))?;
            Step::new(&format!("dSYM of {}", platform.folder), "dsymutil-22").arg(&named).arg("-o").arg(&debug).env("PATH", path).run()?;
            // The shipped dylib: no debug map (stabs) and no local symbols, as `ld -S -x`
            // would leave it; llvm-objcopy signs a linker-signed image again.
            Step::new(&format!("strip {}", platform.folder), "llvm-objcopy-22").args(["--strip-debug", "--discard-all"]).arg(built).arg(shipped).run()
        }
        _ => {
            Step::new(&format!("debug file of {}", platform.folder), "llvm-objcopy-22").arg("--only-keep-debug").arg(built).arg(&debug).run()?;
            Step::new(&format!("strip {}", platform.folder), "llvm-objcopy-22")
                .arg("--strip-all")
                .arg(format!("--add-gnu-debuglink={}", debug.display()))
                .arg(built)
                .arg(shipped)
                .run()
        }
    }
}

/// The identity of a binary or debug file: the ELF build id, the PE CodeView GUID and age,
/// each Mach-O slice's UUID, or a digest of a static library's machine code.
pub fn identity(platform: &Platform, path: &Path) -> Result<String, String> {
    if matches!(platform.kind, Kind::Static(_)) {
        return code_digest(path);
    }
    if platform.file.ends_with(".dylib") {
        let file = if path.is_dir() { dsym_dwarf(path, platform.file) } else { path.to_path_buf() };
        let text = tool_output("llvm-objdump-22", &["--macho", "--private-headers", "--arch=all"], &file)?;
        let ids: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("uuid ")).collect();
        return if ids.is_empty() { Err(format!("{}: no LC_UUID", file.display())) } else { Ok(ids.join(" ")) };
    }
    if platform.file.ends_with(".dll") {
        let text = tool_output("llvm-readobj-22", &["--coff-debug-directory"], path)?;
        let field = |name: &str| text.lines().find_map(|l| l.trim().strip_prefix(name).map(|v| v.trim().to_owned()));
        return match (field("PDBGUID:"), field("PDBAge:")) {
            (Some(guid), Some(age)) => Ok(format!("{guid} age {age}")),
            _ => Err(format!("{}: no CodeView record (link with --build-id)", path.display())),
        };
    }
    let text = tool_output("llvm-readelf-22", &["--notes"], path)?;
    text.lines().find_map(|l| l.trim().strip_prefix("Build ID: ").map(str::to_owned)).ok_or_else(|| format!("{}: no GNU build id", path.display()))
}

/// Whether `platform`'s debug file is there and has `binary`'s id (quietly; `check` says
/// more).
pub fn matches(platform: &Platform, binary: &Path) -> bool {
    let debug = debug_file(platform);
    debug.exists() && matches!((identity(platform, binary), identity(platform, &debug)), (Ok(a), Ok(b)) if a == b)
}

/// A digest of an archive's machine code: its disassembly, which holds every instruction's
/// bytes, from the first section on (the header names the file).
fn code_digest(archive: &Path) -> Result<String, String> {
    let text = tool_output("llvm-objdump-22", &["--disassemble"], archive)?;
    let code = text.find("Disassembly of section").map(|at| &text[at..]).ok_or_else(|| format!("{}: no code", archive.display()))?;
    // FNV-1a 64 over the listing; the listing itself is the comparison, the digest its name.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in code.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok(format!("code {hash:016x} ({} lines)", code.lines().count()))
}

/// The debug file's DWARF line table section, which makes it worth shipping.
fn has_line_tables(platform: &Platform, debug: &Path) -> Result<bool, String> {
    let file = if debug.is_dir() { dsym_dwarf(debug, platform.file) } else { debug.to_path_buf() };
    let headers = tool_output("llvm-objdump-22", &["--section-headers"], &file)?;
    Ok(headers.lines().any(|l| l.contains("debug_line")))
}

/// Checks that `platform`'s debug file belongs to `binary` (the same identity; line tables;
/// an exported function's address resolved to its name through the debug file) and that a
/// copy of the binary with one byte of its identity flipped does not match.
pub fn check(platform: &Platform, binary: &Path) -> Result<Counts, String> {
    let debug = debug_file(platform);
    let mut counts = Counts::default();
    if !debug.exists() {
        return Err(format!("{}: no debug file {} (cargo xtask dist writes it)", platform.folder, debug.display()));
    }
    let ours = identity(platform, binary)?;
    let theirs = identity(platform, &debug)?;
    counts += verdict(&format!("{}: the debug file has the binary's id", platform.folder), ours == theirs, &format!("binary {ours}, debug file {theirs}"));
    counts += verdict(&format!("{}: the debug file has line tables", platform.folder), has_line_tables(platform, &debug)?, "");
    if !matches!(platform.kind, Kind::Static(_)) {
        let (name, resolved) = symbolize_an_export(platform, binary, &debug)?;
        counts += verdict(&format!("{}: {name}'s address resolves to {name} in the debug file", platform.folder), resolved == name, &resolved);
    }
    // The negative control: the same check on a binary whose id differs in one byte.
    let tampered = tampered_copy(platform, binary, &ours)?;
    let other = identity(platform, &tampered)?;
    counts += verdict(&format!("{}: negative control (one byte of the id flipped) does not match", platform.folder), other != theirs, &other);
    Ok(counts)
}

/// A copy of `binary` with one byte of its identity changed: the first byte of the build
/// id, GUID or UUID where the file stores it, or one instruction byte of a static library.
fn tampered_copy(platform: &Platform, binary: &Path, id: &str) -> Result<PathBuf, String> {
    let mut bytes = std::fs::read(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    let at = if matches!(platform.kind, Kind::Static(_)) {
        // A static library's identity is its machine code: change one instruction byte.
        first_instruction_offset(platform, binary, &bytes)?
    } else {
        let first = id.split_whitespace().next().unwrap_or_default();
        let raw = id_bytes(platform, first)?;
        find(&bytes, &raw).ok_or_else(|| format!("{}: the id {first} is not in the file", binary.display()))?
    };
    bytes[at] ^= 0x01;
    let out = crate::harness::out_dir("symbols negative control").join(platform.folder.replace('/', "-")).join(platform.file);
    std::fs::create_dir_all(out.parent().expect("a folder")).map_err(|e| e.to_string())?;
    std::fs::write(&out, bytes).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The bytes of an id as the file stores them.
fn id_bytes(platform: &Platform, text: &str) -> Result<Vec<u8>, String> {
    let hex: String = text.chars().filter(char::is_ascii_hexdigit).collect();
    let mut raw: Vec<u8> = (0..hex.len() / 2).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0)).collect();
    if platform.file.ends_with(".dll") && raw.len() == 16 {
        // A GUID's first three fields are stored little-endian.
        raw[0..4].reverse();
        raw[4..6].reverse();
        raw[6..8].reverse();
    }
    if raw.len() < 8 {
        return Err(format!("{}: id {text} is too short", platform.folder));
    }
    Ok(raw)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Where in a static library's bytes its first listed instruction is: the listing's first
/// instruction bytes, found in the file.
fn first_instruction_offset(platform: &Platform, archive: &Path, bytes: &[u8]) -> Result<usize, String> {
    let text = tool_output("llvm-objdump-22", &["--disassemble"], archive)?;
    // Lines like "  1c: 20 00 80 52   mov w0, #1" (bytes, WebAssembly and x86) or
    // "  1c: 52800020   mov w0, #1" (an arm64 instruction word, stored little-endian): take
    // a run of at least 8 instruction bytes.
    let mut run = Vec::new();
    for line in text.lines() {
        let Some((_, rest)) = line.split_once(": ") else { continue };
        let fields: Vec<&str> = rest.split_whitespace().take_while(|f| matches!(f.len(), 2 | 8) && f.chars().all(|c| c.is_ascii_hexdigit())).collect();
        if fields.is_empty() {
            continue;
        }
        for field in fields {
            let value = u32::from_str_radix(field, 16).map_err(|e| e.to_string())?;
            if field.len() == 8 {
                run.extend(value.to_le_bytes());
            } else {
                run.push(value.to_le_bytes()[0]);
            }
        }
        if run.len() >= 16 {
            break;
        }
    }
    if run.len() < 8 {
        return Err(format!("{}: no instruction bytes in the listing", platform.folder));
    }
    find(bytes, &run).ok_or_else(|| format!("{}: the first instructions are not in the file", platform.folder))
}

/// An exported function of `binary` and the name the debug file gives its address (the
/// outermost function there, inlined calls aside).
fn symbolize_an_export(platform: &Platform, binary: &Path, debug: &Path) -> Result<(String, String), String> {
    let wanted = "elo_get_probability_winning";
    let (address, object, arch): (u64, PathBuf, Option<&str>) = if platform.file.ends_with(".dylib") {
        let text = tool_output("llvm-objdump-22", &["--macho", "--exports-trie", "--arch=arm64"], binary)?;
        let offset = text.lines().find(|l| l.ends_with(&format!(" _{wanted}"))).and_then(|l| l.split_whitespace().next()).ok_or("no export")?;
        // The export trie gives the offset from the image's start; __TEXT starts at 0.
        let value = u64::from_str_radix(offset.trim_start_matches("0x"), 16).map_err(|e| e.to_string())?;
        (value, dsym_dwarf(debug, platform.file), Some("arm64"))
    } else if platform.file.ends_with(".dll") {
        let exports = tool_output("llvm-readobj-22", &["--coff-exports"], binary)?;
        let mut rva = None;
        let mut name = None;
        for line in exports.lines().map(str::trim) {
            if let Some(n) = line.strip_prefix("Name: ") {
                name = Some(n.to_owned());
            }
            if let Some(r) = line.strip_prefix("RVA: ") {
                if name.as_deref() == Some(wanted) {
                    rva = Some(r.to_owned());
                }
            }
        }
        let rva = rva.ok_or_else(|| format!("{}: {wanted} not exported", platform.folder))?;
        let headers = tool_output("llvm-readobj-22", &["--file-headers"], binary)?;
        let base = headers.lines().find_map(|l| l.trim().strip_prefix("ImageBase: ")).ok_or("no ImageBase")?;
        let parse = |v: &str| u64::from_str_radix(v.trim().trim_start_matches("0x"), 16).map_err(|e| e.to_string());
        (parse(base)? + parse(&rva)?, debug.to_path_buf(), None)
    } else {
        let text = tool_output("llvm-nm-22", &["--dynamic", "--defined-only"], binary)?;
        let value = text.lines().find(|l| l.ends_with(&format!(" {wanted}"))).and_then(|l| l.split_whitespace().next()).ok_or("no export")?;
        (u64::from_str_radix(value, 16).map_err(|e| e.to_string())?, debug.to_path_buf(), None)
    };
    let mut command = Command::new("llvm-symbolizer-22");
    command.args(["--no-inlines", "--functions=linkage", "--obj"]).arg(&object);
    if let Some(arch) = arch {
        command.arg(format!("--default-arch={arch}"));
    }
    let output = command.arg(format!("0x{address:x}")).output().map_err(|e| format!("llvm-symbolizer-22: {e}"))?;
    let resolved = String::from_utf8_lossy(&output.stdout).lines().next().unwrap_or_default().trim().trim_start_matches('_').to_owned();
    Ok((wanted.to_owned(), resolved))
}

/// Packs every platform's debug file into `target/dist/<name>-<version>-symbols.tgz`, laid
/// out as `Plugins/` (deterministic: sorted names, fixed times and owners).
pub fn pack(name: &str, version: &str) -> Result<PathBuf, String> {
    let out = crate::tools::root().join("target/dist").join(format!("{name}-{version}-symbols.tgz"));
    Step::new("symbols archive", "tar")
        .args(["--sort=name", "--mtime=@0", "--owner=0", "--group=0", "--numeric-owner", "--use-compress-program=gzip -n", "-cf"])
        .arg(&out)
        .arg("-C")
        .arg(dir())
        .arg(".")
        .run()?;
    Ok(out)
}
