//! Generates the two committed binding files from the Rust sources in `src/ffi/`:
//!
//! * `include/ranking_elo.h`, the C header (cbindgen, settings in `cbindgen.toml`);
//! * `unity/Runtime/Native/NativeMethods.g.cs`, the C# `DllImport` declarations
//!   (csbindgen).
//!
//! Both are always written to `OUT_DIR`; the committed copies are rewritten only when
//! their content changes (so Unity does not re-import on every build), and not at all
//! when `RANKING_ELO_FREEZE_GENERATED` is set: the test `tests/generated_files.rs` then
//! compares the committed files with the fresh ones.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};

const FFI_SOURCES: [&str; 9] = [
    "src/ffi/mod.rs",
    "src/ffi/error.rs",
    "src/ffi/mirror.rs",
    "src/ffi/config.rs",
    "src/ffi/rate.rs",
    "src/ffi/batch.rs",
    "src/ffi/args.rs",
    "src/ffi/pool.rs",
    "src/ffi/matchmaker.rs",
];

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=src/ffi");
    println!("cargo:rerun-if-env-changed=RANKING_ELO_FREEZE_GENERATED");
    let freeze = env::var_os("RANKING_ELO_FREEZE_GENERATED").is_some();

    let header = out_dir.join("ranking_elo.h");
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write_to_file(&header);

    let csharp = out_dir.join("NativeMethods.g.cs");
    let mut builder = csbindgen::Builder::default();
    for source in FFI_SOURCES {
        builder = builder.input_extern_file(crate_dir.join(source));
    }
    builder
        .csharp_dll_name("ranking_elo")
        .csharp_dll_name_if("UNITY_IOS && !UNITY_EDITOR", "__Internal")
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

fn update_if_changed(fresh: &Path, committed: &Path) {
    let content = fs::read(fresh).expect("generated file is readable");
    if fs::read(committed).ok().as_deref() != Some(content.as_slice()) {
        fs::create_dir_all(committed.parent().expect("committed path has a parent")).expect("folder can be created");
        fs::write(committed, content).expect("committed copy can be written");
    }
}
