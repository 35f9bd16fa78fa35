//! The reference pages the Unity package ships: copies of `docs/` pages in
//! `unity/Documentation~/reference/`, because a package installed from a git URL or a tarball
//! has no repository around it, so the manual cannot link to `docs/`. `cargo xtask
//! package-docs` writes them; `cargo xtask test` checks that writing them again changes
//! nothing (edit the originals in `docs/`). Links between copied pages stay relative, a link
//! to the manual becomes `../index.md`, and every other link of the repository becomes its
//! address on GitHub, so each resolves inside the package or on the web (tests/unity_package.rs).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::tools::{root, Counts};

/// The `docs/` pages the package ships.
const PAGES: [&str; 5] = ["configuration.md", "ranges.md", "seasons.md", "teams.md", "quickstart.md"];

/// Where the repository's files are on the web.
const REPOSITORY: &str = "https://github.com/ranking-elo/ranking-elo/blob/main/";

/// The folder of the copies.
fn folder() -> PathBuf {
    root().join("unity/Documentation~/reference")
}

/// Every file the package's reference folder should hold, by path inside it, with its bytes.
fn expected() -> Result<BTreeMap<PathBuf, Vec<u8>>, String> {
    let mut files = BTreeMap::new();
    for page in PAGES {
        let text = std::fs::read_to_string(root().join("docs").join(page)).map_err(|e| format!("docs/{page}: {e}"))?;
        let mut images = Vec::new();
        let copy = format!("<!-- A copy of the repository's docs/{page}, written by `cargo xtask package-docs`: edit the original. -->\n\n{}", rewrite_links(&text, &mut images));
        files.insert(PathBuf::from(page), copy.into_bytes());
        for image in images {
            let bytes = std::fs::read(root().join("docs").join(&image)).map_err(|e| format!("docs/{image}: {e}"))?;
            files.insert(PathBuf::from(image), bytes);
        }
    }
    Ok(files)
}

/// `text` with its inline links made to resolve inside the package; images it shows are added
/// to `images` (paths under `docs/`).
fn rewrite_links(text: &str, images: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("](") {
        out.push_str(&rest[..start + 2]);
        let after = &rest[start + 2..];
        let Some(end) = after.find(')') else {
            rest = after;
            break;
        };
        out.push_str(&package_target(&after[..end], images));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// Where a link of a `docs/` page goes in the package.
fn package_target(target: &str, images: &mut Vec<String>) -> String {
    let (path, anchor) = target.split_once('#').map_or((target, None), |(p, a)| (p, Some(a)));
    let anchor = anchor.map(|a| format!("#{a}")).unwrap_or_default();
    if path.is_empty() || path.contains("://") || path.starts_with("mailto:") || PAGES.contains(&path) {
        return target.to_owned();
    }
    if path.starts_with("images/") {
        images.push(path.to_owned());
        return target.to_owned();
    }
    if path == "../unity/Documentation~/index.md" {
        return format!("../index.md{anchor}");
    }
    format!("{REPOSITORY}{}{anchor}", normalized(&Path::new("docs").join(path)))
}

/// A repository path without `.` and `..` parts, with `/` separators.
fn normalized(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

/// Every file now in the reference folder, by path inside it.
fn present() -> Result<BTreeMap<PathBuf, Vec<u8>>, String> {
    let mut files = BTreeMap::new();
    let mut stack = vec![folder()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
                files.insert(path.strip_prefix(folder()).unwrap_or(&path).to_path_buf(), bytes);
            }
        }
    }
    Ok(files)
}

/// `cargo xtask package-docs`: writes the copies (and removes any file not among them).
pub fn write() -> Result<(), String> {
    let wanted = expected()?;
    for stale in present()?.keys().filter(|path| !wanted.contains_key(*path)) {
        std::fs::remove_file(folder().join(stale)).map_err(|e| format!("{}: {e}", stale.display()))?;
    }
    for (path, bytes) in &wanted {
        let target = folder().join(path);
        std::fs::create_dir_all(target.parent().unwrap_or(&folder())).map_err(|e| e.to_string())?;
        std::fs::write(&target, bytes).map_err(|e| format!("{}: {e}", target.display()))?;
    }
    println!("==> wrote {} files into {}", wanted.len(), folder().display());
    Ok(())
}

/// The copies are the originals' (what `write` would write, nothing more nor less).
pub fn check() -> Result<Counts, String> {
    let (wanted, found) = (expected()?, present()?);
    let differing: Vec<String> = wanted
        .keys()
        .chain(found.keys())
        .filter(|path| wanted.get(*path) != found.get(*path))
        .map(|path| path.display().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if !differing.is_empty() {
        return Err(format!("unity/Documentation~/reference differs from docs/ in {differing:?}: run `cargo xtask package-docs`"));
    }
    println!("==> the package's reference pages are docs/'s ({} files)", wanted.len());
    Ok(Counts { passed: 1, failed: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_made_to_resolve_in_the_package() {
        let mut images = Vec::new();
        let text = "[a](ranges.md#x) [b](../README.md#c-abi) [c](../unity/Documentation~/index.md) [d](images/p.png) [e](https://x.org) [f](../src/lib.rs)";
        assert_eq!(
            rewrite_links(text, &mut images),
            "[a](ranges.md#x) [b](https://github.com/ranking-elo/ranking-elo/blob/main/README.md#c-abi) [c](../index.md) [d](images/p.png) [e](https://x.org) [f](https://github.com/ranking-elo/ranking-elo/blob/main/src/lib.rs)"
        );
        assert_eq!(images, ["images/p.png"]);
    }
}
