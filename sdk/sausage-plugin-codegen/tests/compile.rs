//! The generated code compiles and works: the clients of the golden
//! documents go into a scratch crate (edition 2024, like plugins) over a stub
//! of `sausage_plugin::__private` (tests/stub), which `cargo build`s natively
//! and runs (tests/stub/driver.rs checks what each call sends and gets). A
//! second scratch crate imports `notes` through a proc macro
//! (tests/stub/import_macro.rs) and checks that rustc still names the unused
//! function, at the `import!`.
//!
//! Needs the offline registry that the host's toolchain detection makes (a
//! directory source at `<cache>/toolchain/vendor`, or `SAUSAGE_VENDOR_DIR`),
//! since the stub needs serde's derive macros.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const DOCS: &[&str] = &["notes", "www", "kitchen-sink"];

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory source that stands in for crates.io.
fn vendor_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SAUSAGE_VENDOR_DIR") {
        return dir.into();
    }
    let cache = match (
        std::env::var_os("SAUSAGE_CACHE_DIR"),
        std::env::var_os("XDG_CACHE_HOME"),
    ) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(xdg)) => Path::new(&xdg).join("sausage"),
        (None, None) => {
            Path::new(&std::env::var_os("HOME").unwrap_or("/tmp".into())).join(".cache/sausage")
        }
    };
    cache.join("toolchain/vendor")
}

fn generated(name: &str) -> String {
    let path = crate_dir().join(format!("tests/golden/{name}.json"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    sausage_plugin_codegen::generate_client(name, &doc).unwrap()
}

fn cargo(dir: &Path, target: &Path, args: &[&str]) -> std::process::Output {
    let vendor = vendor_dir();
    assert!(
        vendor.join("serde_derive-1.0.152").exists() || vendor.read_dir().is_ok(),
        "no offline registry at {}: build a plugin once (the host makes it), or set SAUSAGE_VENDOR_DIR",
        vendor.display()
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    Command::new(cargo)
        .args([
            "--offline",
            "--config",
            "source.crates-io.replace-with=\"vendored\"",
            "--config",
        ])
        .arg(format!(
            "source.vendored.directory={:?}",
            vendor.display().to_string()
        ))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_TERM_COLOR", "never")
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs")
}

/// The warnings of a `--message-format json` build (lint, message, line of
/// its first span), and every diagnostic rendered.
fn diagnostics(build: &std::process::Output) -> (Vec<(String, String, u64)>, String) {
    let mut warnings = Vec::new();
    let mut rendered = String::new();
    for line in String::from_utf8_lossy(&build.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if msg["reason"] != "compiler-message" {
            continue;
        }
        let diagnostic = &msg["message"];
        rendered.push_str(diagnostic["rendered"].as_str().unwrap_or(""));
        if diagnostic["level"] == "warning" {
            warnings.push((
                diagnostic["code"]["code"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                diagnostic["message"].as_str().unwrap_or("").to_string(),
                diagnostic["spans"][0]["line_start"].as_u64().unwrap_or(0),
            ));
        }
    }
    (warnings, rendered)
}

#[test]
fn generated_clients_compile_run_and_warn_only_about_the_unused_function() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.join("generated-clients");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let stub = crate_dir().join("tests/stub");
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"generated-clients\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [dependencies]\nsausage-plugin = {{ path = {:?} }}\nserde_json = \"1\"\n\n[workspace]\n",
            stub.display().to_string()
        ),
    )
    .unwrap();
    let mut main = String::new();
    for name in DOCS {
        main.push_str(&generated(name));
        main.push('\n');
    }
    main.push_str(&std::fs::read_to_string(stub.join("driver.rs")).unwrap());
    std::fs::write(dir.join("src/main.rs"), main).unwrap();

    let target = tmp.join("generated-clients-target");
    let build = cargo(
        &dir,
        &target,
        &["build", "--quiet", "--message-format", "json"],
    );
    let (warnings, rendered) = diagnostics(&build);
    assert!(
        build.status.success(),
        "the generated code does not compile:\n{rendered}{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let warnings: Vec<(String, String)> = warnings.into_iter().map(|(c, m, _)| (c, m)).collect();
    assert_eq!(
        warnings,
        [(
            "dead_code".to_string(),
            "function `list` is never used".to_string()
        )],
        "the one warning must be the unused notes::list:\n{rendered}"
    );

    let run = Command::new(target.join("debug/generated-clients"))
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the generated code misbehaves:\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "generated clients ok\n"
    );
}

#[test]
fn through_a_proc_macro_an_unused_function_warns_at_the_import() {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("import-macro");
    let stub = crate_dir().join("tests/stub");
    let codegen = crate_dir();
    for dir in ["macro", "app/src", "app/imports"] {
        std::fs::create_dir_all(tmp.join(dir)).unwrap();
    }
    let macro_toml = format!(
        "[package]\nname = \"import-macro\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
         [lib]\nproc-macro = true\npath = {:?}\n\n\
         [dependencies]\nproc-macro2 = \"1\"\nserde_json = \"1\"\n\
         sausage-plugin-codegen = {{ path = {:?} }}\n",
        stub.join("import_macro.rs").display().to_string(),
        codegen.display().to_string()
    );
    std::fs::write(tmp.join("macro/Cargo.toml"), macro_toml).unwrap();
    let app_toml = format!(
        "[package]\nname = \"import-app\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nimport-macro = {{ path = \"../macro\" }}\n\
         sausage-plugin = {{ path = {:?} }}\n\n[workspace]\n",
        stub.display().to_string()
    );
    std::fs::write(tmp.join("app/Cargo.toml"), app_toml).unwrap();
    let notes = codegen.join("tests/golden/notes.json");
    std::fs::copy(notes, tmp.join("app/imports/notes.json")).unwrap();
    let main = "import_macro::import!(\"notes\");\n\nfn main() {\n    \
                let _call = notes::add(notes::AddParams { text: String::new() });\n}\n";
    std::fs::write(tmp.join("app/src/main.rs"), main).unwrap();

    let args = ["build", "--quiet", "--message-format", "json"];
    let build = cargo(&tmp.join("app"), &tmp.join("target"), &args);
    let (warnings, rendered) = diagnostics(&build);
    assert!(
        build.status.success(),
        "the client does not compile through a proc macro:\n{rendered}{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let list_unused = (
        "dead_code".to_string(),
        "function `list` is never used".to_string(),
        1,
    );
    assert_eq!(
        warnings,
        [list_unused],
        "the one warning must be the unused notes::list, on the line of the import!:\n{rendered}"
    );
}
