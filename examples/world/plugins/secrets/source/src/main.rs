//! Secrets: named secret strings (API tokens, passwords), kept by one
//! service process per world and stored in `/state/secrets/secrets.json`.
//!
//! The service is a singleton (PROTOCOL.md 6: a fixed endpoint path in
//! `/run`): `start` takes the lock `/run/secrets` without waiting, keeps it, and serves the endpoint
//! `secrets` at `/run/secrets`. A second `start` finds the lock taken and
//! returns the ID of the service that runs. So only one process ever writes
//! the file, and no call waits for a lock.
//!
//! The methods `set`, `get`, `names` and `delete` of the main interface
//! forward to the service, and start it (detached) when none runs. Another
//! plugin can also connect to `/run/secrets` itself, with the endpoint
//! interface `secrets` (`import!("secrets")` generates the client).
//!
//! Secret values never appear in `rpc.discover`, in the journal or in
//! `/proc`; only `get` returns them. The file is plain JSON: whoever can
//! read the world can read the secrets (there are no permissions).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;

use sausage_plugin::{
    Endpoint, Result, call, connect_as, listen, lock, pid, rpc, schema, state_dir, write_atomic,
};

/// The path of the service's lock and endpoint file.
const SERVICE: &str = "/run/secrets";

/// The secrets plugin: starts the service and forwards calls to it.
struct Plugin;

/// The params of `set`.
#[schema]
struct SetParams {
    /// The name of the secret, for example `openai-token`.
    name: String,
    /// The secret value. It replaces the value stored under `name`.
    value: String,
}

/// The params of `get` and `delete`.
#[schema]
struct NameParams {
    /// The name of the secret.
    name: String,
}

#[rpc(endpoints(secrets = Secrets))]
impl Plugin {
    /// Start the secrets service, or return the ID of the one that runs.
    ///
    /// Call it detached: the service then runs until the host stops (or
    /// `core.stop`). The other methods start it when needed.
    async fn start(&self) -> Result<String> {
        let Some(lock) = lock(SERVICE).try_now().await? else {
            return sausage_plugin::endpoint_owner(SERVICE); // another instance runs
        };
        lock.keep(); // hold the lock until this process ends
        listen(SERVICE, Secrets::open()?).await?;
        Ok(pid())
    }

    /// Store a secret under a name, replacing any value it had.
    async fn set(&self, params: SetParams) -> Result<()> {
        service().await?.call_as("set", params).await
    }

    /// The secret stored under a name, or `null` when there is none.
    async fn get(&self, params: NameParams) -> Result<Option<String>> {
        service().await?.call_as("get", params).await
    }

    /// The names of all secrets, sorted (without their values).
    async fn names(&self) -> Result<Vec<String>> {
        service().await?.call_as("names", serde_json::json!({})).await
    }

    /// Delete a secret. Returns whether there was one.
    async fn delete(&self, params: NameParams) -> Result<bool> {
        service().await?.call_as("delete", params).await
    }
}

/// A connection to the running service; starts one (detached) when none runs.
async fn service() -> Result<Endpoint> {
    if let Ok(endpoint) = connect_as(SERVICE, "secrets").await {
        return Ok(endpoint);
    }
    let _pid: String = call("secrets.start", serde_json::json!({})).detach().returning().await?;
    connect_as(SERVICE, "secrets").await
}

/// The running service: the secrets in memory, written through to the file.
struct Secrets {
    /// The secrets by name.
    values: RefCell<BTreeMap<String, String>>,
}

impl Secrets {
    /// Loads the secrets from the file (none when there is no file).
    fn open() -> Result<Secrets> {
        let values = match std::fs::read(file()) {
            Ok(bytes) => serde_json::from_slice(&bytes)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(e) => return Err(e.into()),
        };
        Ok(Secrets { values: RefCell::new(values) })
    }

    /// Writes all secrets to the file, in one step.
    fn save(&self) -> Result<()> {
        write_atomic(file(), serde_json::to_vec_pretty(&*self.values.borrow())?)
    }
}

#[rpc]
impl Secrets {
    /// Store a secret under a name, replacing any value it had.
    fn set(&self, SetParams { name, value }: SetParams) -> Result<()> {
        self.values.borrow_mut().insert(name, value);
        self.save()
    }

    /// The secret stored under a name, or `null` when there is none.
    fn get(&self, NameParams { name }: NameParams) -> Result<Option<String>> {
        Ok(self.values.borrow().get(&name).cloned())
    }

    /// The names of all secrets, sorted (without their values).
    fn names(&self) -> Result<Vec<String>> {
        Ok(self.values.borrow().keys().cloned().collect())
    }

    /// Delete a secret. Returns whether there was one.
    fn delete(&self, NameParams { name }: NameParams) -> Result<bool> {
        let existed = self.values.borrow_mut().remove(&name).is_some();
        if existed {
            self.save()?;
        }
        Ok(existed)
    }
}

/// The file with the secrets: a JSON object of names to values.
fn file() -> PathBuf {
    state_dir().join("secrets.json")
}

fn main() {
    sausage_plugin::run(Plugin);
}
