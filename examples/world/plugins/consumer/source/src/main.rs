//! consumer: uses `notes` and `www` through clients that `import!`
//! generates from `imports/notes.json` and `imports/www.json` (PROTOCOL.md 13.2).

use sausage_plugin::{Result, rpc, schema};

sausage_plugin::import!("notes"); // imports/notes.json
sausage_plugin::import!("www"); // imports/www.json, with its endpoint "control"

/// The consumer plugin.
struct Consumer;

/// The params of `note`.
#[schema]
struct NoteParams {
    /// The text of the note to add.
    text: String,
}

/// The params of `serve`.
#[schema]
struct ServeParams {
    /// The port of the web server.
    port: u16,
}

#[rpc]
impl Consumer {
    /// Add a note through the typed client; return the number of notes.
    async fn note(&self, NoteParams { text }: NoteParams) -> Result<usize> {
        let added = notes::add(notes::AddParams { text }).await?;
        eprintln!("{} notes", added.count); // stderr goes to the journal
        Ok(added.count as usize)
    }

    /// All notes, through the typed client.
    async fn notes(&self) -> Result<Vec<String>> {
        notes::list().await
    }

    /// Start a web server (detached), read its stats on its endpoint, stop it.
    async fn serve(&self, ServeParams { port }: ServeParams) -> Result<u64> {
        let pid = www::start(www::StartParams { port }).detach().await?;
        let control = www::control::connect(&format!("/proc/{pid}/control")).await?;
        let hits = control.stats().await?;
        control.stop().await?;
        Ok(hits)
    }
}

fn main() {
    sausage_plugin::run(Consumer);
}
