//! The committed generated files equal what `build.rs` generates from the current
//! sources, and the C# declarations cover exactly the C header's functions. (CI builds with
//! `RANKING_ELO_FREEZE_GENERATED=1`, so that the build does not refresh the committed
//! copies before this test compares them.)

fn compare(committed: &str, generated: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let committed_text = std::fs::read_to_string(format!("{root}/{committed}")).unwrap();
    let generated_text = std::fs::read_to_string(format!("{}/{generated}", env!("OUT_DIR"))).unwrap();
    assert!(committed_text == generated_text, "{committed} is stale: run `cargo build` and commit the regenerated file");
}

#[test]
fn c_header_is_up_to_date() {
    compare("include/ranking_elo.h", "ranking_elo.h");
}

#[test]
fn csharp_declarations_are_up_to_date() {
    compare("unity/Runtime/Native/NativeMethods.g.cs", "NativeMethods.g.cs");
}

/// The C header's functions, by name: every `elo_…(` outside comments.
fn header_functions(header: &str) -> Vec<String> {
    let mut code = String::new();
    let mut rest = header;
    // Up to the next comment, then past its end (a line's end, or `*/`).
    while let Some(at) = [rest.find("//"), rest.find("/*")].into_iter().flatten().min() {
        code.push_str(&rest[..at]);
        let end = if rest[at..].starts_with("//") { rest[at..].find('\n') } else { rest[at..].find("*/").map(|end| end + 2) };
        rest = end.map_or("", |end| &rest[at + end..]);
    }
    code.push_str(rest);
    let mut names = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("elo_") {
        let start = at + found;
        let end = code[start..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).map_or(code.len(), |len| start + len);
        let whole_word = !code[..start].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if whole_word && code[end..].starts_with('(') {
            names.push(code[start..end].to_owned());
        }
        at = end;
    }
    names
}

/// The C# declarations' entry points: every `EntryPoint = "…"`.
fn csharp_entry_points(csharp: &str) -> Vec<String> {
    csharp.split("EntryPoint = \"").skip(1).filter_map(|rest| rest.split_once('"')).map(|(name, _)| name.to_owned()).collect()
}

/// Every function of the C header has a C# declaration and every C# declaration a function
/// of the header: `build.rs` gives csbindgen every file of `src/ffi/`, so no exported
/// function goes without its C# binding.
#[test]
fn csharp_declares_exactly_the_header_functions() {
    let root = env!("CARGO_MANIFEST_DIR");
    let header = header_functions(&std::fs::read_to_string(format!("{root}/include/ranking_elo.h")).unwrap());
    let csharp = csharp_entry_points(&std::fs::read_to_string(format!("{root}/unity/Runtime/Native/NativeMethods.g.cs")).unwrap());
    let unique = |names: &[String]| names.iter().cloned().collect::<std::collections::BTreeSet<_>>();
    let (in_header, in_csharp) = (unique(&header), unique(&csharp));
    assert_eq!((in_header.len(), in_csharp.len()), (header.len(), csharp.len()), "each function is declared once");
    assert!(in_header.len() > 60 && in_header.contains("elo_version") && in_header.contains("elo_pool_apply_decay"), "{in_header:?}");
    assert_eq!(in_header.difference(&in_csharp).collect::<Vec<_>>(), Vec::<&String>::new(), "functions of the header without a C# declaration (is their file in src/ffi/?)");
    assert_eq!(in_csharp.difference(&in_header).collect::<Vec<_>>(), Vec::<&String>::new(), "C# declarations of functions the header does not have");
}

#[test]
fn the_function_lists_are_read_from_the_code_not_the_comments() {
    let header = "// elo_commented(int)\n/* elo_block(\n */ EloResult elo_pool_new(const EloConfig *config,\n    EloPool **out_pool);\nconst char *elo_version(void);\n";
    assert_eq!(header_functions(header), ["elo_pool_new", "elo_version"]);
    let csharp = r#"[DllImport(__DllName, EntryPoint = "elo_version", CallingConvention = CallingConvention.Cdecl)] [DllImport(__DllName, EntryPoint = "elo_pool_new")]"#;
    assert_eq!(csharp_entry_points(csharp), ["elo_version", "elo_pool_new"]);
}
