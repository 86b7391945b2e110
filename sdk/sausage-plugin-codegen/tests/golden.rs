//! The generated source of each document in tests/golden/ equals the
//! `.rs` file next to it, byte for byte. `UPDATE_GOLDEN=1 cargo test` writes
//! the files instead (review the diff before committing it).

use std::path::PathBuf;

use serde_json::Value;

fn check(name: &str) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap())
            .unwrap();
    let got = sausage_plugin_codegen::generate_client(name, &doc).unwrap();
    let path = dir.join(format!("{name}.rs"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_default();
    if got != want {
        let line = got.lines().zip(want.lines()).position(|(a, b)| a != b);
        panic!(
            "{} differs from the generated code (first difference at line {}); \
             run with UPDATE_GOLDEN=1 to rewrite it.\n--- generated:\n{got}",
            path.display(),
            line.map_or("end".to_string(), |l| (l + 1).to_string()),
        );
    }
}

#[test]
fn notes_matches_its_golden_file() {
    check("notes");
}

#[test]
fn www_with_its_control_endpoint_matches_its_golden_file() {
    check("www");
}

#[test]
fn kitchen_sink_with_keywords_defs_enums_maps_and_ranges_matches_its_golden_file() {
    check("kitchen-sink");
}
