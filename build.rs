//! Generates the two committed binding files from the Rust sources in `src/ffi/`:
//!
//! * `include/ranking_elo.h`, the C header (cbindgen, settings in `cbindgen.toml`);
//! * `unity/Runtime/Native/NativeMethods.g.cs`, the C# `DllImport` declarations
//!   (csbindgen).
//!
//! It also computes the engine's **build id** (`RANKING_ELO_BUILD_ID`, returned by
//! `elo_build_id()`): a 128-bit FNV-1a hash of everything that decides what the shipped
//! binaries contain (see [`BUILD_INPUTS`]). The Unity package's committed binaries carry it,
//! and the tests compare it with the id of the source they run on, so binaries older than
//! the source are caught (`cargo xtask dist` rebuilds them).
//!
//! Both are always written to `OUT_DIR`; the committed copies are rewritten only when
//! their content changes (so Unity does not re-import on every build), and not at all
//! when `RANKING_ELO_FREEZE_GENERATED` is set: the test `tests/generated_files.rs` then
//! compares the committed files with the fresh ones.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

#[path = "build/locked.rs"]
mod locked;

/// The order in which the C# declarations (`NativeMethods.g.cs`) list the files of
/// `src/ffi/`, kept so that the generated file stays as it is when a file is added. The
/// files are found in the folder ([`ffi_sources`]): one not named here is read after these,
/// in name order, so every file there gets its C# bindings without an edit here.
const CSHARP_ORDER: [&str; 13] = ["mod", "error", "messages", "mirror", "config", "rate", "batch", "args", "pool", "matchmaker", "group", "events", "seasons"];

/// The files (and folders, walked recursively) whose content makes the build id: the
/// engine's source, its locked dependencies (only the engine's own dependency closure of
/// `Cargo.lock`: see `build/locked.rs`), and the build settings (release profile,
/// per-target flags, the dist recipe with its Android link and its rebuilding of the static
/// libraries).
const BUILD_INPUTS: [&str; 11] = [
    "src",
    "build.rs",
    "build",
    "Cargo.toml",
    "Cargo.lock",
    "cbindgen.toml",
    ".cargo/config.toml",
    "xtask/src/dist.rs",
    "xtask/src/android.rs",
    "xtask/src/archive.rs",
    "xtask/src/wasm_object.rs",
];

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    for input in BUILD_INPUTS {
        println!("cargo:rerun-if-changed={input}");
    }
    println!("cargo:rustc-env=RANKING_ELO_BUILD_ID={}", build_id(&crate_dir));
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-env-changed=RANKING_ELO_FREEZE_GENERATED");
    let freeze = env::var_os("RANKING_ELO_FREEZE_GENERATED").is_some();

    let header = out_dir.join("ranking_elo.h");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    cbindgen::Builder::new().with_crate(&crate_dir).with_config(config).generate().expect("cbindgen generates the header").write_to_file(&header);

    let csharp = out_dir.join("NativeMethods.g.cs");
    let mut builder = csbindgen::Builder::default();
    for source in ffi_sources(&crate_dir) {
        builder = builder.input_extern_file(source);
    }
    builder
        .csharp_dll_name("ranking_elo")
        .csharp_dll_name_if("(UNITY_IOS || UNITY_WEBGL) && !UNITY_EDITOR", "__Internal")
        .csharp_namespace("RankingElo.Native")
        .csharp_class_name("NativeMethods")
        .csharp_class_accessibility("internal")
        .csharp_use_nint_types(false)
        .csharp_use_function_pointer(false)
        .generate_csharp_file(&csharp)
        .expect("csbindgen generates the C# declarations");

    if !freeze {
        update_if_changed(&header, &crate_dir.join("include/ranking_elo.h"));
        update_if_changed(&csharp, &crate_dir.join("unity/Runtime/Native/NativeMethods.g.cs"));
    }
}

/// Every `*.rs` file of `src/ffi/` (the C ABI), in [`CSHARP_ORDER`], then by name.
fn ffi_sources(crate_dir: &Path) -> Vec<PathBuf> {
    let folder = crate_dir.join("src/ffi");
    let mut files: Vec<PathBuf> = fs::read_dir(&folder)
        .expect("src/ffi is readable")
        .map(|entry| entry.expect("src/ffi is readable").path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|extension| extension == "rs"))
        .collect();
    let rank = |path: &Path| {
        let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default();
        CSHARP_ORDER.iter().position(|known| *known == stem).unwrap_or(CSHARP_ORDER.len())
    };
    files.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
    files
}

fn update_if_changed(fresh: &Path, committed: &Path) {
    let content = fs::read(fresh).expect("generated file is readable");
    if fs::read(committed).ok().as_deref() != Some(content.as_slice()) {
        fs::create_dir_all(committed.parent().expect("committed path has a parent")).expect("folder can be created");
        fs::write(committed, content).expect("committed copy can be written");
    }
}

/// The build id: FNV-1a (128-bit) over each input file's path relative to the crate and its
/// content with CRLF line ends read as LF (so a Windows checkout gives the same id), in
/// sorted path order. A missing input (a crate published without `xtask/`) hashes as absent.
fn build_id(crate_dir: &Path) -> String {
    let mut files = Vec::new();
    for input in BUILD_INPUTS {
        collect_files(crate_dir, Path::new(input), &mut files);
    }
    files.sort();
    let mut hash = Fnv128::new();
    for relative in files {
        let mut content = fs::read(crate_dir.join(&relative)).expect("build input is readable");
        if relative == "Cargo.lock" {
            // Only the engine's dependencies: other workspace members' never enter the plugin.
            let lock = String::from_utf8_lossy(&content).replace("\r\n", "\n");
            let manifest = fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap_or_default();
            content = locked::engine_closure(&lock, &manifest).into_bytes();
        }
        hash.write(relative.as_bytes());
        hash.write(&[0]);
        let mut previous_cr = false;
        for &byte in &content {
            if previous_cr && byte != b'\n' {
                hash.write(b"\r");
            }
            previous_cr = byte == b'\r';
            if !previous_cr {
                hash.write(&[byte]);
            }
        }
        if previous_cr {
            hash.write(b"\r");
        }
        hash.write(&[0]);
    }
    format!("{:032x}", hash.0)
}

/// Adds `relative` (a file, or every file below a folder) to `files` as `/`-separated paths.
fn collect_files(crate_dir: &Path, relative: &Path, files: &mut Vec<String>) {
    let path = crate_dir.join(relative);
    if path.is_dir() {
        for entry in fs::read_dir(&path).expect("build input folder is readable").flatten() {
            collect_files(crate_dir, &relative.join(entry.file_name()), files);
        }
    } else if path.is_file() {
        let parts: Vec<String> = relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        files.push(parts.join("/"));
    }
}

/// 128-bit FNV-1a: a small, fixed, dependency-free hash (change detection, not security).
struct Fnv128(u128);

impl Fnv128 {
    fn new() -> Self {
        Self(0x6c62_272e_07bb_0142_62b8_2175_6295_c58d)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u128::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
        }
    }
}
