//! The committed generated files equal what `build.rs` generates from the current
//! sources. (CI builds with `RANKING_ELO_FREEZE_GENERATED=1`, so that the build does not
//! refresh the committed copies before this test compares them.)

fn compare(committed: &str, generated: &str) {
    let root = env!("CARGO_MANIFEST_DIR");
    let committed_text = std::fs::read_to_string(format!("{root}/{committed}")).unwrap();
    let generated_text = std::fs::read_to_string(format!("{}/{generated}", env!("OUT_DIR"))).unwrap();
    assert!(
        committed_text == generated_text,
        "{committed} is stale: run `cargo build` and commit the regenerated file"
    );
}

#[test]
fn c_header_is_up_to_date() {
    compare("include/ranking_elo.h", "ranking_elo.h");
}

#[test]
fn csharp_declarations_are_up_to_date() {
    compare("unity/Runtime/Native/NativeMethods.g.cs", "NativeMethods.g.cs");
}
