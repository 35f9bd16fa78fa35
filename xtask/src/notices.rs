//! `cargo xtask notices`: writes the Unity package's `Third Party Notices.md`, the notices of
//! everything compiled into the binaries it ships, with the full license texts and the
//! copyright holders (MIT, BSD and Apache-2.0 require the notices themselves, not links):
//!
//! 1. the engine's crates: its normal dependency closure on every target, without procedural
//!    macros (`cargo tree -p ranking-elo -e normal,no-proc-macro --target all`, from
//!    `Cargo.lock`), each with the license files of its published source (Cargo's registry
//!    folder) and the holders those files name, or else the authors of its `Cargo.toml`;
//! 2. the Rust standard library and the crates it is built from, from the Rust project's own
//!    `COPYRIGHT-library.html` (vendored in `third_party/rust-library`);
//! 3. the platform runtimes the linkers add (LLVM's libunwind and compiler-rt, MinGW-w64's
//!    runtime and winpthreads, GCC's libgcc), from [`RUNTIMES`] and the texts vendored in
//!    `third_party/`.
//!
//! Identical license texts are written once, at the end, each with the components it belongs
//! to. The file is committed; `cargo xtask test` regenerates it and fails when it differs
//! (`the_committed_notices_are_current`), and checks that it lists every crate of the engine's
//! closure (`the_notices_list_every_crate_compiled_in`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::tools::root;

/// Where the notices go.
pub const NOTICES: &str = "unity/Third Party Notices.md";

/// The vendored notices of the Rust standard library.
const RUST_LIBRARY: &str = "third_party/rust-library";

/// Which toolchain the vendored standard-library notices come from, and which builds the binaries.
const RUST_LIBRARY_FROM: &str =
    "Rust 1.95.0's `share/doc/rust/COPYRIGHT-library.html` (vendored in `third_party/rust-library`); the binaries are built with Debian's `rustc-web` 1.96.0";

/// A component a linker adds to the binaries.
struct Runtime {
    name: &'static str,
    version: &'static str,
    license: &'static str,
    holders: &'static str,
    used_in: &'static str,
    /// License texts, relative to the repository.
    texts: &'static [&'static str],
}

/// The platform runtimes linked into the binaries (`xtask/src/dist.rs`, `android.rs`).
const RUNTIMES: [Runtime; 5] = [
    Runtime {
        name: "LLVM libunwind",
        version: "zig 0.17.1's (macOS, iOS), LLVM's with Rust 1.96 (Android, WebGL)",
        license: "Apache-2.0 WITH LLVM-exception",
        holders: "the LLVM Project's contributors (https://llvm.org)",
        used_in: "macOS, iOS, Android, WebGL",
        texts: &["third_party/rust-library/licenses/Apache-2.0.txt", "third_party/rust-library/licenses/LLVM-exception.txt"],
    },
    Runtime {
        name: "LLVM compiler-rt builtins",
        version: "zig 0.17.1's (its linker runtime)",
        license: "Apache-2.0 WITH LLVM-exception",
        holders: "the LLVM Project's contributors (https://llvm.org)",
        used_in: "Linux, macOS",
        texts: &["third_party/rust-library/licenses/Apache-2.0.txt", "third_party/rust-library/licenses/LLVM-exception.txt"],
    },
    Runtime {
        name: "MinGW-w64 runtime (CRT start-up code)",
        version: "Debian bookworm's gcc-mingw-w64",
        license: "ZPL-2.1 and the notices listed in its COPYING.MinGW-w64-runtime.txt",
        holders: "the mingw-w64 project; Todd C. Miller; The NetBSD Foundation, Inc.; Lucent Technologies; David M. Gay; Sun Microsystems, Inc.; Stephen L. Moshier",
        used_in: "Windows",
        texts: &["third_party/mingw-w64/COPYING.MinGW-w64-runtime.txt"],
    },
    Runtime {
        name: "MinGW-w64 winpthreads",
        version: "Debian bookworm's gcc-mingw-w64",
        license: "MIT",
        holders: "the mingw-w64 project",
        used_in: "Windows",
        texts: &["third_party/mingw-w64/winpthreads-notice.txt"],
    },
    Runtime {
        name: "GCC's libgcc (linked statically)",
        version: "Debian bookworm's gcc-mingw-w64",
        license: "GPL-3.0-or-later WITH GCC-exception-3.1 (the exception lets the compiled runtime be distributed under any terms)",
        holders: "the Free Software Foundation, Inc.",
        used_in: "Windows",
        texts: &["third_party/rust-library/licenses/GCC-exception-3.1.txt"],
    },
];

/// One crate compiled into the binaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crate {
    pub name: String,
    pub version: String,
    pub license: String,
    pub source: String,
}

/// `cargo xtask notices`: writes the notices.
pub fn write() -> Result<(), String> {
    let text = generate()?;
    let missing = missing_crates(&text, &engine_crates()?);
    if !missing.is_empty() {
        return Err(format!("the notices would lack {missing:?}"));
    }
    std::fs::write(root().join(NOTICES), text).map_err(|e| format!("{NOTICES}: {e}"))?;
    println!("==> wrote {NOTICES}");
    Ok(())
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// The engine's crates compiled into the binaries: its normal dependencies on every target,
/// without procedural macros (they run in the compiler only).
pub fn engine_crates() -> Result<Vec<Crate>, String> {
    let output = std::process::Command::new(cargo())
        .args(["tree", "--locked", "--package", "ranking-elo", "--edges", "normal,no-proc-macro", "--target", "all", "--prefix", "none", "--format", "{p}|{l}|{r}"])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cargo tree: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo tree: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let mut crates = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let fields: Vec<&str> = line.split('|').collect();
        let [package, license, source] = fields[..] else { continue };
        let mut words = package.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else { continue };
        // The engine itself (a path, not a registry crate) is this package's own code.
        if name == "ranking-elo" {
            continue;
        }
        let version = version.trim_start_matches('v').to_owned();
        let source = source.trim().trim_end_matches("(*)").trim().to_owned();
        crates.insert((name.to_owned(), version.clone()), Crate { name: name.to_owned(), version, license: license.trim().to_owned(), source });
    }
    if crates.is_empty() {
        return Err("cargo tree listed no crate".to_owned());
    }
    Ok(crates.into_values().collect())
}

/// The folder of a crate's published source in Cargo's registry.
fn registry_folder(krate: &Crate) -> Result<PathBuf, String> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set")?;
    let registries = home.join("registry/src");
    let mut found: Vec<PathBuf> = std::fs::read_dir(&registries)
        .map_err(|e| format!("{}: {e} (run `cargo fetch`)", registries.display()))?
        .flatten()
        .map(|entry| entry.path().join(format!("{}-{}", krate.name, krate.version)))
        .filter(|path| path.is_dir())
        .collect();
    found.sort();
    found.pop().ok_or_else(|| format!("the source of {} {} is not in {} (run `cargo fetch`)", krate.name, krate.version, registries.display()))
}

/// Whether a file of a crate's root is a license or notice file.
fn is_license_file(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["LICENSE", "LICENCE", "COPYING", "UNLICENSE", "NOTICE", "COPYRIGHT"].iter().any(|p| upper.starts_with(p))
}

/// The copyright lines of license texts (not the licenses' own templates and clauses).
fn copyright_lines(texts: &[(String, String)]) -> Vec<String> {
    let mut lines = Vec::new();
    for (_, text) in texts {
        for line in text.lines().map(str::trim) {
            let lower = line.to_ascii_lowercase();
            let holder = line.starts_with("Copyright")
                && !line.contains('[')
                && !line.contains('<')
                && !lower.starts_with("copyright notice")
                && !lower.contains("copyright owner")
                && !lower.contains("copyright holder")
                && line.len() > "Copyright ".len() + 2;
            if holder && !lines.contains(&line.to_owned()) {
                lines.push(line.to_owned());
            }
        }
    }
    lines
}

/// The names of a `Cargo.toml`'s `authors`, without their e-mail addresses.
fn authors(manifest: &str) -> Vec<String> {
    let Some(start) = manifest.find("\nauthors = [") else { return Vec::new() };
    let rest = &manifest[start + "\nauthors = [".len()..];
    let list = &rest[..rest.find(']').unwrap_or(rest.len())];
    list.split(',').map(|a| a.trim().trim_matches('"')).map(|a| a.split('<').next().unwrap_or(a).trim().to_owned()).filter(|a| !a.is_empty()).collect()
}

/// A component of the notices with its license texts.
struct Entry {
    title: String,
    license: String,
    holders: String,
    details: Vec<String>,
    texts: Vec<(String, String)>,
}

/// The engine's crates with their license files and holders.
fn engine_entries() -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    for krate in engine_crates()? {
        let folder = registry_folder(&krate)?;
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .map_err(|e| format!("{}: {e}", folder.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_file() && p.file_name().is_some_and(|n| is_license_file(&n.to_string_lossy())))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(format!("{} {} ships no license file in {}", krate.name, krate.version, folder.display()));
        }
        let mut texts = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
            texts.push((file.file_name().unwrap_or_default().to_string_lossy().into_owned(), text));
        }
        let lines = copyright_lines(&texts);
        let holders = if !lines.is_empty() {
            lines.join("; ")
        } else {
            let manifest = std::fs::read_to_string(folder.join("Cargo.toml")).unwrap_or_default();
            let names = authors(&manifest);
            if names.is_empty() {
                format!("the authors of {} ({}; its license files and manifest name no holder)", krate.name, krate.source)
            } else {
                format!("{} (the authors its Cargo.toml names; its license files name no holder)", names.join(", "))
            }
        };
        entries.push(Entry {
            title: format!("{} {}", krate.name, krate.version),
            license: krate.license.clone(),
            holders,
            details: vec![format!("Source: {}", if krate.source.is_empty() { format!("https://crates.io/crates/{}", krate.name) } else { krate.source.clone() })],
            texts,
        });
    }
    Ok(entries)
}

/// `&#34;` and the other entities the Rust project's page uses.
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let Some(end) = rest.find(';').filter(|&e| e < 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let entity = &rest[1..end];
        let decoded = match entity {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => entity.strip_prefix('#').and_then(|n| n.parse::<u32>().ok()).and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The text between `start` and `end` after `at` in `page`, and where it ends.
fn between<'a>(page: &'a str, at: usize, start: &str, end: &str) -> Option<(&'a str, usize)> {
    let from = page[at..].find(start)? + at + start.len();
    let to = page[from..].find(end)? + from;
    Some((&page[from..to], to + end.len()))
}

/// Strips tags from a fragment of HTML.
fn strip_tags(html: &str) -> String {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    unescape(out.trim())
}

/// The standard library's own files and its crates, from the Rust project's page.
fn rust_library_entries(page: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let out_of_tree = page.find("id=\"out-of-tree-dependencies\"").ok_or("COPYRIGHT-library.html: no out-of-tree section")?;
    // In-tree files: one box each.
    let marker = "<b>File/Directory:</b>";
    let mut at = 0;
    while let Some(found) = page[at..out_of_tree].find(marker) {
        // A box ends at its </div> or where a box nested in it (an exception) begins.
        let start = at + found + marker.len();
        let rest = &page[start..out_of_tree];
        let end = start + [rest.find(marker), rest.find("</div>")].into_iter().flatten().min().unwrap_or(rest.len());
        let block = &page[start..end];
        at = end;
        let path = between(block, 0, "<code>", "</code>").map(|(p, _)| unescape(p)).unwrap_or_default();
        let license = between(block, 0, "<b>License:</b>", "</p>").map(|(l, _)| strip_tags(l)).unwrap_or_default();
        let mut holders = Vec::new();
        let mut from = 0;
        while let Some((holder, next)) = between(block, from, "<b>Copyright:</b>", "</p>") {
            holders.push(strip_tags(holder));
            from = next;
        }
        let texts = license_texts_for(&license)?;
        entries.push(Entry { title: format!("the standard library's `{path}`"), license, holders: holders.join("; "), details: Vec::new(), texts });
    }
    // Out-of-tree crates, with their notices.
    let mut at = out_of_tree;
    while let Some((heading, next)) = between(page, at, "<h3>", "</h3>") {
        let section_end = page[next..].find("<h3>").map_or(page.len(), |e| e + next);
        let section = &page[next..section_end];
        at = section_end;
        let title = strip_tags(heading).trim_start_matches('📦').trim().to_owned();
        let split = title.char_indices().find(|&(i, c)| c == '-' && title[i + 1..].starts_with(|d: char| d.is_ascii_digit())).map(|(i, _)| i);
        let title = match split {
            Some(i) => format!("{} {}", &title[..i], &title[i + 1..]),
            None => title,
        };
        let field = |name: &str| between(section, 0, &format!("<b>{name}:</b>"), "</p>").map(|(v, _)| strip_tags(v)).unwrap_or_default();
        let (license, url, authors) = (field("License"), field("URL"), field("Authors"));
        let mut texts = Vec::new();
        let mut from = 0;
        while let Some((summary, next)) = between(section, from, "<summary>", "</summary>") {
            let Some((pre, after)) = between(section, next, "<pre>", "</pre>") else { break };
            texts.push((strip_tags(summary), unescape(pre.trim_matches('\n')).trim_end().to_owned() + "\n"));
            from = after;
        }
        let lines = copyright_lines(&texts);
        let names: Vec<String> = authors.split(',').map(|a| a.split('<').next().unwrap_or(a).trim().to_owned()).filter(|a| !a.is_empty()).collect();
        let holders = if !lines.is_empty() {
            lines.join("; ")
        } else if !names.is_empty() {
            format!("{} (the crate's authors; its license files name no holder)", names.join(", "))
        } else {
            format!("the authors of {title} (its license files and manifest name no holder)")
        };
        let mut details = vec![format!("Source: {url}")];
        if texts.is_empty() {
            // The page gives no license file (crates of other targets, such as SGX's): the
            // vendored text of its license when there is one.
            match license_texts_for(&license) {
                Ok(found) => texts = found,
                Err(_) => details.push("The Rust project's page gives no license file for it, and no text of its license is vendored here".to_owned()),
            }
        }
        entries.push(Entry { title, license, holders, details, texts });
    }
    if entries.len() < 10 {
        return Err(format!("COPYRIGHT-library.html: only {} entries read", entries.len()));
    }
    Ok(entries)
}

/// The vendored texts of the licenses an SPDX expression names.
fn license_texts_for(expression: &str) -> Result<Vec<(String, String)>, String> {
    let mut texts = Vec::new();
    for word in expression.split(|c: char| c.is_whitespace() || c == '(' || c == ')') {
        if word.is_empty() || ["AND", "OR", "WITH"].contains(&word) {
            continue;
        }
        let path = root().join(RUST_LIBRARY).join("licenses").join(format!("{word}.txt"));
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e} (the license {word} of {expression:?} has no vendored text)", path.display()))?;
        texts.push((format!("{word}.txt"), text));
    }
    Ok(texts)
}

fn runtime_entries() -> Result<Vec<Entry>, String> {
    RUNTIMES
        .iter()
        .map(|runtime| {
            let mut texts = Vec::new();
            for path in runtime.texts {
                let text = std::fs::read_to_string(root().join(path)).map_err(|e| format!("{path}: {e}"))?;
                texts.push((Path::new(path).file_name().unwrap_or_default().to_string_lossy().into_owned(), text));
            }
            Ok(Entry {
                title: runtime.name.to_owned(),
                license: runtime.license.to_owned(),
                holders: runtime.holders.to_owned(),
                details: vec![format!("Version: {}", runtime.version), format!("In: {}", runtime.used_in)],
                texts,
            })
        })
        .collect()
}

/// The notices, from the engine's `Cargo.lock` closure, the vendored standard-library page
/// and the runtimes.
pub fn generate() -> Result<String, String> {
    let page_path = root().join(RUST_LIBRARY).join("COPYRIGHT-library.html");
    let page = std::fs::read_to_string(&page_path).map_err(|e| format!("{}: {e}", page_path.display()))?;
    let sections = [
        ("The engine's dependencies", "From `Cargo.lock`: the crates the engine is compiled with (its normal dependencies on every target; procedural macros run in the compiler and are not in the binaries). Every binary has them.".to_owned(), engine_entries()?),
        ("The Rust standard library", format!("Compiled into every binary: its own files and the crates it is built from, as {RUST_LIBRARY_FROM}. Some of these crates serve other targets or only its build."), rust_library_entries(&page)?),
        ("Platform runtimes", "What the linkers add to some binaries (`xtask/src/dist.rs`, `xtask/src/android.rs`).".to_owned(), runtime_entries()?),
    ];
    // Identical texts once: by content, in order of first use.
    let mut text_ids: BTreeMap<String, usize> = BTreeMap::new();
    let mut texts: Vec<(String, Vec<String>)> = Vec::new();
    let mut out = String::new();
    out.push_str("# Third Party Notices\n\n");
    out.push_str("<!-- Generated by `cargo xtask notices` (xtask/src/notices.rs) from Cargo.lock, the crates' own license files, the Rust project's notices of its standard library and the license texts vendored in third_party/. Do not edit: `cargo xtask test` regenerates it and fails when it differs. -->\n\n");
    out.push_str("The native libraries in `Runtime/Plugins/` are built from this package's Rust engine (license:\n`LICENSE.md`) and contain the code of the components below, compiled or linked in. Each\ncomponent names its license and copyright holders; the full texts of its license files follow\nat the end (a text several components share is written once, with their names).\n\n");
    let mut body = String::new();
    for (heading, intro, entries) in &sections {
        writeln!(body, "## {heading}\n\n{intro}\n").unwrap_or_default();
        for entry in entries {
            let mut refs = Vec::new();
            for (file, text) in &entry.texts {
                let normalized = text.replace("\r\n", "\n").trim_end().to_owned() + "\n";
                let id = match text_ids.get(&normalized) {
                    Some(&id) => id,
                    None => {
                        texts.push((normalized.clone(), Vec::new()));
                        text_ids.insert(normalized.clone(), texts.len());
                        texts.len()
                    }
                };
                texts[id - 1].1.push(format!("{} ({file})", entry.title));
                refs.push(format!("[{file}](#text-{id})"));
            }
            writeln!(body, "### {}\n", entry.title).unwrap_or_default();
            writeln!(body, "- License: {}", entry.license).unwrap_or_default();
            writeln!(body, "- Copyright: {}", entry.holders).unwrap_or_default();
            for detail in &entry.details {
                writeln!(body, "- {detail}").unwrap_or_default();
            }
            if refs.is_empty() {
                body.push('\n');
            } else {
                writeln!(body, "- License texts: {}\n", refs.join(", ")).unwrap_or_default();
            }
        }
    }
    out.push_str(&body);
    out.push_str("## License texts\n\n");
    for (index, (text, users)) in texts.iter().enumerate() {
        let fence = if text.contains("```") { "~~~~" } else { "```" };
        writeln!(out, "<a id=\"text-{}\"></a>\n\n### Text {}\n\nOf: {}.\n\n{fence}text\n{text}{fence}\n", index + 1, index + 1, users.join(", ")).unwrap_or_default();
    }
    Ok(out)
}

/// The crates of `crates` the notices do not name with their version (`### name version`).
pub fn missing_crates(notices: &str, crates: &[Crate]) -> Vec<String> {
    crates.iter().map(|c| format!("### {} {}", c.name, c.version)).filter(|heading| !notices.lines().any(|l| l == heading)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed file is what the generator writes now (`cargo xtask notices` after a
    /// dependency changes).
    #[test]
    fn the_committed_notices_are_current() {
        let committed = std::fs::read_to_string(root().join(NOTICES)).unwrap();
        let fresh = generate().unwrap();
        assert!(committed == fresh, "{NOTICES} is stale: run `cargo xtask notices` and commit it");
    }

    /// Every crate compiled into the shipped library is in the committed notices, with its
    /// version, license and a copyright line; the standard library and the runtimes too.
    #[test]
    fn the_notices_list_every_crate_compiled_in() {
        let committed = std::fs::read_to_string(root().join(NOTICES)).unwrap();
        let crates = engine_crates().unwrap();
        for name in ["serde", "serde_core", "libc"] {
            assert!(crates.iter().any(|c| c.name == name), "the engine's closure lacks {name}: {crates:?}");
        }
        // The engine reads and writes its JSON by hand (src/json): serde_json is a
        // dev-dependency only, and not compiled into the library.
        assert!(crates.iter().all(|c| c.name != "serde_json"), "serde_json is not compiled in: {crates:?}");
        assert!(crates.iter().all(|c| c.name != "serde_derive" && c.name != "cbindgen"), "procedural macros and build tools are not compiled in");
        assert_eq!(missing_crates(&committed, &crates), Vec::<String>::new());
        for needle in [
            "### hashbrown",
            "### the standard library's `.`",
            "### LLVM libunwind",
            "### MinGW-w64 winpthreads",
            "Copyright (c) 2014 Alex Crichton",
            "Erick Tryzelaar, David Tolnay (the authors its Cargo.toml names",
            "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
            "LLVM Exceptions to the Apache 2.0 License",
        ] {
            assert!(committed.contains(needle), "the notices lack {needle:?}");
        }
        assert!(!committed.contains("](https://opensource.org"), "texts, not links");
    }

    #[test]
    fn a_crate_left_out_is_reported() {
        let crates = vec![
            Crate { name: "serde".into(), version: "1.0.229".into(), license: "MIT OR Apache-2.0".into(), source: String::new() },
            Crate { name: "itoa".into(), version: "1.0.18".into(), license: "MIT OR Apache-2.0".into(), source: String::new() },
        ];
        let notices = "### serde 1.0.229\n\n- License: MIT OR Apache-2.0\n\n### itoa 1.0.17\n";
        assert_eq!(missing_crates(notices, &crates), ["### itoa 1.0.18"]);
    }

    #[test]
    fn holders_come_from_license_files_or_the_manifest() {
        let texts = vec![
            (
                "LICENSE-MIT".to_owned(),
                "Copyright (c) 2015 Andrew Gallant\n\nPermission is hereby granted …\nThe above copyright notice and this permission notice shall be included\n".to_owned(),
            ),
            ("LICENSE-APACHE".to_owned(), "   Copyright [yyyy] [name of copyright owner]\n".to_owned()),
        ];
        assert_eq!(copyright_lines(&texts), ["Copyright (c) 2015 Andrew Gallant"]);
        let manifest = "[package]\nname = \"serde\"\nauthors = [\n    \"Erick Tryzelaar <erick.tryzelaar@gmail.com>\",\n    \"David Tolnay <dtolnay@gmail.com>\",\n]\n";
        assert_eq!(authors(manifest), ["Erick Tryzelaar", "David Tolnay"]);
        assert_eq!(unescape("Amanieu d&#39;Antras &#60;a@b&#62; &amp; &#34;x&#34;"), "Amanieu d'Antras <a@b> & \"x\"");
    }
}
