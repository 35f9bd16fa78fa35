//! What the generated C header (`include/ranking_elo.h`) declares: the exported `elo_`
//! functions every binary must export, no more and no less.

use std::collections::BTreeSet;

/// The `elo_` functions the header declares.
pub fn functions() -> Result<BTreeSet<String>, String> {
    let path = crate::tools::root().join("include/ranking_elo.h");
    let header = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let names: BTreeSet<String> = header
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with('/') && !l.starts_with('#'))
        .filter_map(|l| {
            let before = l.split('(').next()?;
            let name = before.rsplit([' ', '*']).next()?;
            (name.starts_with("elo_") && l.contains('(')).then(|| name.to_owned())
        })
        .collect();
    if names.len() < 40 {
        return Err(format!("only {} functions found in {}", names.len(), path.display()));
    }
    Ok(names)
}
