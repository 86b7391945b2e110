/**
 * What `sausage new` writes: the files of a new world and of a new plugin.
 * The plugin builds as it is, documents itself (every method, type and field
 * has a doc comment), shows an error with a code, and has both kinds of test
 * (a plain `#[test]` and an async `#[sausage_plugin::test]`).
 *
 * @module
 */

/** `notes-db` → `NotesDb`: the plugin's Rust type. */
export function typeName(plugin: string): string {
  const name = plugin.split(/[-_]/).filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  return /^[A-Z]/.test(name) ? name : `P${name}`;
}

/** The files of a new plugin's `source/` folder, by relative path. */
export function pluginFiles(plugin: string): Record<string, string> {
  const type = typeName(plugin);
  const crate = plugin.replaceAll("_", "-");
  return {
    "Cargo.toml": `[package]
name = "${crate}"
version = "0.1.0"
edition = "2024"

[dependencies]
sausage-plugin = "0.1"
serde_json = "1"
`,
    "src/main.rs": `//! ${type}: say here what this plugin is for. This text becomes the
//! plugin's description in its \`rpc.discover\` document, which other plugins
//! import (\`sausage_plugin::import!("${plugin}")\`) and agents read.

use sausage_plugin::{Error, Result, rpc, schema};

/// The ${plugin} plugin. Each call runs in a fresh process: keep state in
/// files under \`sausage_plugin::state_dir()\`, not in memory.
struct ${type};

/// The params of \`greet\`.
#[schema]
struct GreetParams {
    /// Who to greet: a name, not empty.
    name: String,
}

/// The result of \`greet\`.
#[schema]
struct Greeting {
    /// The greeting, naming the person.
    text: String,
}

#[rpc]
impl ${type} {
    /// Greet someone.
    ///
    /// Returns a greeting that names them; an empty name is an error (code 1).
    fn greet(&self, GreetParams { name }: GreetParams) -> Result<Greeting> {
        if name.trim().is_empty() {
            return Err(Error::with_code(1, "name is empty: give a name to greet"));
        }
        Ok(Greeting {
            text: format!("Hello, {name}!"),
        })
    }
}

fn main() {
    sausage_plugin::run(${type});
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greet_names_the_person() {
        let params = GreetParams { name: "Ada".into() };
        let greeting = ${type}.greet(params).unwrap();
        assert_eq!(greeting.text, "Hello, Ada!");
    }

    // Async methods (those that call other plugins, lock files or sleep)
    // are tested on the SDK's executor.
    #[sausage_plugin::test]
    async fn an_empty_name_is_refused_with_code_1() {
        let params = GreetParams { name: " ".into() };
        let error = ${type}.greet(params).err().unwrap();
        assert_eq!(error.code(), 1);
    }
}
`,
  };
}

/** The files of a new world, by relative path (its first plugin comes from {@link pluginFiles}). */
export function worldFiles(): Record<string, string> {
  return {
    "config/boot.json": "[]\n",
    ".gitignore":
      "# Written by sausage for cargo in plugin folders; rewritten at every run.\n/.cargo/\n",
  };
}
