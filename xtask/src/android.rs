//! Android shared libraries without an NDK (`cargo xtask dist`).
//!
//! Unity loads an Android plugin with `dlopen("libranking_elo.so")` (Mono, IL2CPP's
//! `DllImport("ranking_elo")`, Burst), so the package ships one shared library per ABI. No
//! NDK is in Debian, PyPI or npm, so the NDK's link is reproduced from parts that are:
//!
//! * the engine as a static library built by the pinned `rustc` (`dist.rs`), its embedded
//!   LLVM bitcode removed;
//! * stub `libc.so`, `libm.so` and `libdl.so` with one empty definition per symbol that
//!   bionic makes public for the ABI at [`bionic::MIN_API`] (`bionic.rs`, from bionic's own
//!   symbol maps, as the NDK's stubs are): linking with `-z defs` then fails on any function
//!   the oldest supported Android lacks;
//! * LLVM's libunwind, linked statically with hidden symbols as the NDK does, built with
//!   thread support from the sources PyPI's `ziglang` ships. bionic's headers are not
//!   available, so it is compiled against musl's headers (also from `ziglang`) with three
//!   small overrides that give bionic's ABI where it differs: `pthread_rwlock_t`'s size,
//!   `errno` (`__errno()`) and `stderr` (`&__sF[2]` before API 23);
//! * `clang` and `lld` (Debian's `clang-22`, `lld-22`) with the NDK's flags: 16 KiB pages,
//!   no text relocations, `-z now`, `-z relro`, both hash styles, a build id, and a version
//!   script that exports exactly the header's functions.

use std::path::{Path, PathBuf};

use crate::bionic;
use crate::tools::Step;

/// One Android ABI.
#[derive(Clone, Copy, Debug)]
pub struct Abi {
    /// The Unity package's folder under `Plugins/`.
    pub folder: &'static str,
    /// `clang`'s target at the minimum API level.
    pub clang_target: &'static str,
    /// bionic's name of the architecture (in its symbol maps).
    pub bionic_arch: &'static str,
    /// zig's musl header folder (`<arch>-linux-musl`).
    musl_arch: &'static str,
    /// zig's Linux kernel header folder (`<arch>-linux-any`).
    kernel_arch: &'static str,
}

/// The ABIs the package ships (Unity's Android ABIs, less the 32-bit x86 it dropped).
pub const ABIS: [Abi; 3] = [
    Abi { folder: "Android/arm64-v8a", clang_target: "aarch64-linux-android21", bionic_arch: "arm64", musl_arch: "aarch64", kernel_arch: "aarch64" },
    Abi { folder: "Android/armeabi-v7a", clang_target: "armv7a-linux-androideabi21", bionic_arch: "arm", musl_arch: "arm", kernel_arch: "arm" },
    Abi { folder: "Android/x86_64", clang_target: "x86_64-linux-android21", bionic_arch: "x86_64", musl_arch: "x86_64", kernel_arch: "x86" },
];

/// The ABI of a package folder.
pub fn abi(folder: &str) -> Option<Abi> {
    ABIS.into_iter().find(|a| a.folder == folder)
}

/// The C compiler and linker driver (Debian's `clang-22` with `lld-22`).
pub const CLANG: &str = "clang-22";

/// Sources of LLVM's libunwind that an unwinder for ELF targets needs.
const LIBUNWIND_SOURCES: [&str; 6] = ["libunwind.cpp", "Unwind-EHABI.cpp", "UnwindLevel1.c", "UnwindLevel1-gcc-ext.c", "UnwindRegistersRestore.S", "UnwindRegistersSave.S"];

/// bionic's ABI where musl's headers differ, for compiling libunwind (see the module docs).
const HEADER_OVERRIDES: [(&str, &str); 3] = [
    (
        "pthread.h",
        "/* The part of bionic's <pthread.h> libunwind uses, with bionic's layout. */\n#pragma once\n#include <stdint.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\ntypedef struct { int32_t __private[sizeof(long) == 8 ? 14 : 10]; } pthread_rwlock_t;\n#define PTHREAD_RWLOCK_INITIALIZER { { 0 } }\nint pthread_rwlock_rdlock(pthread_rwlock_t *);\nint pthread_rwlock_wrlock(pthread_rwlock_t *);\nint pthread_rwlock_unlock(pthread_rwlock_t *);\n#ifdef __cplusplus\n}\n#endif\n",
    ),
    (
        "errno.h",
        "/* bionic's errno is *__errno(). */\n#pragma once\n#include_next <errno.h>\n#undef errno\n#ifdef __cplusplus\nextern \"C\"\n#endif\nint *__errno(void);\n#define errno (*__errno())\n",
    ),
    (
        "stdio.h",
        "/* bionic before API 23 has no `stderr` variable: it is &__sF[2], FILE being 152 bytes\n * (LP64) or 84 bytes (ILP32) there. */\n#pragma once\n#include_next <stdio.h>\n#undef stderr\n#ifdef __cplusplus\nextern \"C\" char __sF[];\n#else\nextern char __sF[];\n#endif\n#define stderr ((FILE *)(__sF + 2 * (sizeof(long) == 8 ? 152 : 84)))\n",
    ),
];

/// Where the link of `abi` works.
fn work_dir(abi: &Abi) -> PathBuf {
    crate::tools::root().join("target/dist/android").join(abi.folder.trim_start_matches("Android/"))
}

/// zig's bundled sources and headers (PyPI `ziglang`).
pub fn zig_lib() -> Result<PathBuf, String> {
    let out = std::process::Command::new("python3").args(["-c", "import ziglang, os; print(os.path.dirname(ziglang.__file__))"]).output().map_err(|e| format!("python3: {e}"))?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("lib");
    if dir.join("libunwind/src").is_dir() {
        Ok(dir)
    } else {
        Err(format!("zig's libunwind sources are not in {} (pip install ziglang)", dir.display()))
    }
}

/// Links `archive` (the engine built as a static library for `abi`) into `out`, the
/// Android shared library, with its symbol table and debug information (`symbols.rs` splits
/// them off; the GNU build id ties the two).
pub fn link(abi: &Abi, archive: &Path, out: &Path) -> Result<(), String> {
    let work = work_dir(abi);
    if work.exists() {
        std::fs::remove_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    }
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let stubs = stub_libraries(abi, &work)?;
    let unwind = libunwind(abi, &work)?;
    let engine = work.join("libranking_elo_nobitcode.a");
    crate::archive::strip_bitcode(crate::archive::Format::Elf, archive, &engine)?;
    let exports = work.join("exports.map");
    let functions = crate::header::functions()?;
    let mut script = String::from("{\n  global:\n");
    for name in &functions {
        script.push_str(&format!("    {name};\n"));
    }
    script.push_str("  local: *;\n};\n");
    std::fs::write(&exports, script).map_err(|e| e.to_string())?;
    let mut step = Step::new(&format!("link {} (clang + lld, bionic stubs)", abi.folder), CLANG)
        .arg(format!("--target={}", abi.clang_target))
        .args(["-fuse-ld=lld", "-nostdlib", "-shared", "-Wl,-soname,libranking_elo.so"])
        .arg(format!("-Wl,--version-script={}", exports.display()))
        // Every export is kept although nothing in the archive references it.
        .args(functions.iter().map(|f| format!("-Wl,-u,{f}")))
        .args(["-Wl,--gc-sections", "-Wl,-z,defs", "-Wl,-z,now", "-Wl,-z,relro", "-Wl,-z,noexecstack"])
        .args(["-Wl,-z,max-page-size=16384", "-Wl,--hash-style=both", "-Wl,--build-id=sha1"])
        .arg("-Wl,--no-undefined-version");
    if abi.bionic_arch == "arm" {
        // As the NDK links for ARMv7 (a Cortex-A8 erratum).
        step = step.arg("-Wl,--fix-cortex-a8");
    }
    step.arg(&engine).arg(&unwind).arg(format!("-L{}", stubs.display())).args(["-ldl", "-lm", "-lc", "-o"]).arg(out).run()
}

/// Writes and compiles the stub `libc.so`, `libm.so` and `libdl.so`; returns their folder.
fn stub_libraries(abi: &Abi, work: &Path) -> Result<PathBuf, String> {
    let dir = work.join("stubs");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    for library in bionic::LIBRARIES {
        let symbols = bionic::public_symbols(library, abi.bionic_arch, bionic::MIN_API)?;
        let source = dir.join(format!("stub_lib{library}.c"));
        std::fs::write(&source, bionic::stub_source(&symbols)).map_err(|e| e.to_string())?;
        Step::new(&format!("stub lib{library}.so for {} ({} symbols)", abi.folder, symbols.len()), CLANG)
            .arg(format!("--target={}", abi.clang_target))
            .args(["-fuse-ld=lld", "-nostdlib", "-shared", "-fPIC", "-fno-builtin", "-w", "-O0"])
            .arg(format!("-Wl,-soname,lib{library}.so"))
            .arg(&source)
            .arg("-o")
            .arg(dir.join(format!("lib{library}.so")))
            .run()?;
    }
    Ok(dir)
}

/// Compiles LLVM's libunwind for `abi` into a static library with hidden symbols.
fn libunwind(abi: &Abi, work: &Path) -> Result<PathBuf, String> {
    let zig = zig_lib()?;
    let dir = work.join("libunwind");
    let overrides = dir.join("include");
    std::fs::create_dir_all(&overrides).map_err(|e| e.to_string())?;
    for (name, text) in HEADER_OVERRIDES {
        std::fs::write(overrides.join(name), text).map_err(|e| e.to_string())?;
    }
    let headers = zig.join("libc/include");
    let mut objects = Vec::new();
    for source in LIBUNWIND_SOURCES {
        let object = dir.join(format!("{}.o", source.rsplit_once('.').map_or(source, |(stem, _)| stem)));
        let language: &[&str] = if source.ends_with(".cpp") {
            &["-fno-exceptions", "-fno-rtti", "-nostdinc++", "-std=c++17"]
        } else if source.ends_with(".c") {
            &["-std=c99"]
        } else {
            &[]
        };
        Step::new(&format!("libunwind {source} for {}", abi.folder), CLANG)
            .arg(format!("--target={}", abi.clang_target))
            .args(["-O2", "-fPIC", "-fvisibility=hidden", "-funwind-tables", "-nostdlibinc", "-w"])
            .args(["-D_LIBUNWIND_IS_NATIVE_ONLY", "-D_LIBUNWIND_HIDE_SYMBOLS", "-DNDEBUG"])
            .arg("-isystem")
            .arg(&overrides)
            .arg("-isystem")
            .arg(headers.join(format!("{}-linux-musl", abi.musl_arch)))
            .arg("-isystem")
            .arg(headers.join("generic-musl"))
            .arg("-isystem")
            .arg(headers.join(format!("{}-linux-any", abi.kernel_arch)))
            .arg("-isystem")
            .arg(headers.join("any-linux-any"))
            .arg(format!("-I{}", zig.join("libunwind/include").display()))
            .args(language)
            .arg("-c")
            .arg(zig.join("libunwind/src").join(source))
            .arg("-o")
            .arg(&object)
            .quiet()
            .run()?;
        objects.push(object);
    }
    let library = dir.join("libunwind.a");
    Step::new(&format!("libunwind.a for {}", abi.folder), "llvm-ar-22").arg("rcsD").arg(&library).args(&objects).run()?;
    Ok(library)
}
