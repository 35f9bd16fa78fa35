//! Android's C library as an app may link against it: the public symbols of bionic's
//! `libc.so`, `libm.so` and `libdl.so` for one CPU architecture at one API level, read from
//! bionic's symbol maps (`third_party/android-bionic/*.map.txt`, copied unmodified from AOSP
//! with their notice: the files the NDK's own stub libraries are generated from).
//!
//! The rules are the NDK's: the sections `LIBC_PRIVATE`, `LIBC_PLATFORM` and
//! `LIBC_DEPRECATED` are not for apps, nor are symbols tagged for the platform only
//! (`apex`, `llndk`, `systemapi`, `platform-only`, `future`); a symbol with architecture
//! tags exists only on those architectures; `introduced-<arch>=N` (symbol, then section)
//! wins over `introduced=N`; without either the symbol has been there from the start.
//!
//! `cargo xtask dist` links the Android libraries against stubs made from this list (so a
//! function Android lacks at the minimum API level fails the link), and `cargo xtask test`
//! checks every committed Android library's imports against it.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The lowest Android API level the libraries support (the NDK's floor for 64-bit ABIs;
/// Unity 2021.3 needs 22 and Unity 6 needs 23, so every Unity player is above it).
pub const MIN_API: u32 = 21;

/// The three libraries an Android app's native code may link against here.
pub const LIBRARIES: [&str; 3] = ["c", "m", "dl"];

/// Architectures as bionic's maps name them.
const ARCHES: [&str; 5] = ["arm", "arm64", "x86", "x86_64", "riscv64"];

/// Tags that keep a symbol out of the NDK.
const NOT_FOR_APPS: [&str; 5] = ["apex", "llndk", "systemapi", "platform-only", "future"];

/// Sections that are not for apps.
const PRIVATE_SECTIONS: [&str; 3] = ["LIBC_PRIVATE", "LIBC_PLATFORM", "LIBC_DEPRECATED"];

/// One public symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// A variable (`# var`), not a function.
    pub variable: bool,
}

/// The public symbols of `lib<library>.so` for `arch` (bionic's name: `arm`, `arm64`,
/// `x86_64`) at API level `api`.
pub fn public_symbols(library: &str, arch: &str, api: u32) -> Result<BTreeMap<String, Symbol>, String> {
    let path = maps_dir().join(format!("lib{library}.map.txt"));
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e} (bionic's symbol maps are vendored in third_party/android-bionic)", path.display()))?;
    parse(&text, arch, api).map_err(|e| format!("{}: {e}", path.display()))
}

/// Every public symbol of the three libraries, with the library that has it.
pub fn all_public_symbols(arch: &str, api: u32) -> Result<BTreeMap<String, (&'static str, Symbol)>, String> {
    let mut all = BTreeMap::new();
    for library in LIBRARIES {
        for (name, symbol) in public_symbols(library, arch, api)? {
            all.entry(name).or_insert((library, symbol));
        }
    }
    Ok(all)
}

/// bionic's maps, vendored in the repository (`third_party/android-bionic`, with AOSP's
/// notice in its `NOTICE.md`).
pub fn maps_dir() -> PathBuf {
    crate::tools::root().join("third_party/android-bionic")
}

/// The tags of a `# …` comment.
fn tags(comment: Option<&str>) -> Vec<&str> {
    comment.map(|c| c.split_whitespace().collect()).unwrap_or_default()
}

/// `introduced=` for `arch` among `tags`: the architecture's own value first.
fn introduced(tags: &[&str], arch: &str) -> Result<Option<u32>, String> {
    let own = format!("introduced-{arch}=");
    let mut general = None;
    for tag in tags {
        if let Some(value) = tag.strip_prefix(&own) {
            return api_level(value).map(Some);
        }
        if let Some(value) = tag.strip_prefix("introduced=") {
            general = Some(api_level(value)?);
        }
    }
    Ok(general)
}

fn api_level(value: &str) -> Result<u32, String> {
    // Letter codenames are levels not released when the map was written: never available.
    value.parse().or_else(|_| if value.chars().all(|c| c.is_ascii_alphabetic()) { Ok(u32::MAX) } else { Err(format!("bad API level {value:?}")) })
}

fn parse(text: &str, arch: &str, api: u32) -> Result<BTreeMap<String, Symbol>, String> {
    if !ARCHES.contains(&arch) {
        return Err(format!("unknown architecture {arch:?}"));
    }
    let mut symbols = BTreeMap::new();
    // The section being read: its name and tags.
    let mut section: Option<(String, Vec<String>)> = None;
    for (number, raw) in text.lines().enumerate() {
        let (code, comment) = match raw.split_once('#') {
            Some((code, comment)) => (code.trim(), Some(comment)),
            None => (raw.trim(), None),
        };
        if code.is_empty() {
            continue;
        }
        if let Some(name) = code.strip_suffix('{') {
            section = Some((name.trim().to_owned(), tags(comment).into_iter().map(str::to_owned).collect()));
            continue;
        }
        if code.starts_with('}') {
            section = None;
            continue;
        }
        if code == "global:" || code == "local:" || code == "*;" {
            continue;
        }
        let Some(name) = code.strip_suffix(';') else {
            return Err(format!("line {}: cannot read {raw:?}", number + 1));
        };
        let (section_name, section_tags) = section.as_ref().ok_or_else(|| format!("line {}: symbol outside a section", number + 1))?;
        if PRIVATE_SECTIONS.contains(&section_name.as_str()) {
            continue;
        }
        let symbol_tags = tags(comment);
        let section_tags: Vec<&str> = section_tags.iter().map(String::as_str).collect();
        if symbol_tags.iter().chain(&section_tags).any(|t| NOT_FOR_APPS.contains(t)) {
            continue;
        }
        let arches: Vec<&&str> = symbol_tags.iter().filter(|t| ARCHES.contains(t)).collect();
        if !arches.is_empty() && !arches.iter().any(|a| **a == arch) {
            continue;
        }
        let since = match introduced(&symbol_tags, arch)? {
            Some(level) => level,
            None => introduced(&section_tags, arch)?.unwrap_or(0),
        };
        if since > api {
            continue;
        }
        symbols.insert(name.trim().to_owned(), Symbol { variable: symbol_tags.contains(&"var") });
    }
    Ok(symbols)
}

/// C source of a stub library: one empty definition per public symbol (as the NDK's stub
/// libraries are), so that linking against it checks that every import exists.
pub fn stub_source(symbols: &BTreeMap<String, Symbol>) -> String {
    let mut out = String::from("/* Generated by cargo xtask dist from bionic's symbol maps: link stubs only. */\n");
    for (name, symbol) in symbols {
        if symbol.variable {
            out.push_str(&format!("char {name}[1];\n"));
        } else {
            out.push_str(&format!("void {name}(void) {{}}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "LIBC {\n  global:\n    always;\n    arm_only; # arm\n    later; # introduced=23\n    arm64_late; # introduced-arm64=24 introduced=21\n    data; # var\n    vendor; # apex\n  local:\n    *;\n};\n\nLIBC_N { # introduced-arm64=24\n  global:\n    n_symbol;\n} LIBC;\n\nLIBC_PRIVATE {\n  global:\n    private_one;\n};\n";

    #[test]
    fn the_ndk_rules() {
        let arm64 = parse(MAP, "arm64", 21).unwrap();
        assert_eq!(arm64.keys().map(String::as_str).collect::<Vec<_>>(), ["always", "data"]);
        assert!(arm64["data"].variable);
        let arm = parse(MAP, "arm", 21).unwrap();
        assert_eq!(arm.keys().map(String::as_str).collect::<Vec<_>>(), ["always", "arm64_late", "arm_only", "data", "n_symbol"]);
        let later = parse(MAP, "arm64", 24).unwrap();
        assert!(later.contains_key("later") && later.contains_key("arm64_late") && later.contains_key("n_symbol"));
        assert!(!later.contains_key("private_one") && !later.contains_key("vendor"));
    }

    /// The maps are part of the repository (a clone needs nothing beside it) and come with
    /// AOSP's notice and the license they are distributed under.
    #[test]
    fn the_maps_are_vendored_with_their_notice() {
        let dir = maps_dir();
        assert!(dir.starts_with(crate::tools::root()) && !dir.components().any(|c| c == std::path::Component::ParentDir), "{}", dir.display());
        for library in LIBRARIES {
            assert!(dir.join(format!("lib{library}.map.txt")).is_file(), "lib{library}.map.txt is not vendored");
        }
        let notice = std::fs::read_to_string(dir.join("NOTICE.md")).unwrap();
        for needle in ["https://android.googlesource.com/platform/bionic", "The Android Open Source Project", "Apache License, Version 2.0", "LICENSE-Apache-2.0.txt"] {
            assert!(notice.contains(needle), "NOTICE.md does not say {needle:?}");
        }
        let license = std::fs::read_to_string(dir.join("LICENSE-Apache-2.0.txt")).unwrap();
        assert!(license.contains("Apache License") && license.contains("TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION"));
    }

    #[test]
    fn the_real_maps_at_the_minimum_level() {
        let arm64 = all_public_symbols("arm64", MIN_API).unwrap();
        // In every Android release.
        for name in ["malloc", "pthread_rwlock_wrlock", "__errno", "dladdr", "dl_iterate_phdr", "fmod"] {
            assert!(arm64.contains_key(name), "{name}");
        }
        // Added after API 21: a library needing them would not load on Android 5.
        for name in ["stderr", "__cxa_thread_atexit_impl", "getentropy", "__system_property_add"] {
            assert!(!arm64.contains_key(name), "{name}");
        }
        assert_eq!(arm64["dl_iterate_phdr"].0, "dl");
        assert!(all_public_symbols("arm", MIN_API).unwrap().contains_key("__aeabi_memcpy"));
        assert!(!arm64.contains_key("__aeabi_memcpy"));
    }
}
