/**
 * The secrets file of a world (`secrets_path.ts`): `{"world": <its path>,
 * "secrets": {<name>: <value>}}`, the owner's alone. It is read whole at each
 * `core.secret` (so a `sausage secret set` takes effect at the next call) and
 * written whole, atomically: a new file made with `O_EXCL` and mode 0600 in
 * the same folder, then renamed over the old one. The folder is made 0700 and
 * checked to be a real folder of this user's (`ensurePrivateDir`). A change
 * (`setSecret`, `removeSecret`) reads, changes and writes under an exclusive
 * lock of that folder (`flock`), so two at once both take effect.
 *
 * Nothing here follows a link: a link (or anything but a regular file of
 * this user's, 0600) at the file's place is refused, for reads and for
 * writes, and the file opened is checked by inode against the one checked.
 * Errors never quote the file's text: it holds the values.
 *
 * @module
 */

import { ensurePrivateDir, userId } from "../control/control_path.ts";
import { isSecretName, SECRET_NAME_RULE } from "./secret_name.ts";
import { NotRegularFile, readRegularBytes } from "../world/regular_file.ts";

/** The most bytes (UTF-8) one value may have. */
export const MAX_SECRET_BYTES = 64 * 1024;

/** What a secrets file holds. */
export interface SecretStore {
  /** The world's real path, so that the owner can tell the files apart. */
  world: string;
  /** The values by name. */
  secrets: Record<string, string>;
}

/** The secrets file cannot be used as it is: what is wrong and what to do (never a value). */
export class SecretStoreError extends Error {
  /** @param message what is wrong with which file, and what to do */
  constructor(message: string) {
    super(message);
    this.name = "SecretStoreError";
  }
}

/**
 * Checks that the entry at `path` (from `lstat`) may be read or replaced: a
 * regular file (not a link) of this user's that no one else may read.
 */
function checkEntry(path: string, info: Deno.FileInfo): void {
  if (info.isSymlink) {
    throw new SecretStoreError(
      `${path} is a link, not a file: refused (nothing is read or written through it); ` +
        "remove it, then set the secrets again",
    );
  }
  if (!info.isFile) throw new SecretStoreError(`${path} is not a regular file: refused`);
  const uid = userId();
  if (uid !== null && info.uid !== null && info.uid !== uid) {
    throw new SecretStoreError(`${path} belongs to another user (uid ${info.uid}): refused`);
  }
  const mode = (info.mode ?? 0) & 0o777;
  if (mode & 0o077) {
    throw new SecretStoreError(
      `${path} may be read by other users (mode 0${mode.toString(8)}): refused; chmod 600 it`,
    );
  }
}

/** The entry at `path` from `lstat`, or null when there is none. */
function entry(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/**
 * Reads the secrets file at `path`: an empty store (for `world`) when there
 * is none. Throws a {@link SecretStoreError} for a link, a file others may
 * read, or a file that is not a secrets file.
 */
export function readSecretStore(path: string, world: string): SecretStore {
  const before = entry(path);
  if (!before) return { world, secrets: {} };
  checkEntry(path, before);
  let text: string;
  try {
    // Opened without waiting, and the file opened is the one checked: not a link or a file
    // swapped in since.
    text = new TextDecoder().decode(readRegularBytes(path, { dev: before.dev, ino: before.ino }));
  } catch (e) {
    if (!(e instanceof NotRegularFile)) throw e;
    throw new SecretStoreError(`${path} changed while it was opened: try again`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text, which holds the values.
    throw new SecretStoreError(
      `${path} is not a secrets file (not JSON): fix it, or remove it and set the secrets again`,
    );
  }
  const secrets = (json as { secrets?: unknown })?.secrets;
  if (typeof secrets !== "object" || secrets === null || Array.isArray(secrets)) {
    throw new SecretStoreError(
      `${path} is not a secrets file (no "secrets" object): fix it, or remove it and set the secrets again`,
    );
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(secrets)) {
    if (isSecretName(name) && typeof value === "string") out[name] = value;
  }
  return { world, secrets: out };
}

/**
 * Writes `store` to `path` atomically: its folder made (0700) and checked, a
 * new file beside it (`O_EXCL`, 0600) renamed over the old one. A link at
 * `path` is refused (it would be replaced, never written through, in any
 * case: a rename replaces the entry itself).
 */
export function writeSecretStore(path: string, store: SecretStore): void {
  ensurePrivateDir(folderOf(path));
  writeChecked(path, store);
}

/** The folder that holds the secrets file at `path`. */
function folderOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}

/** {@link writeSecretStore} once its folder is made and checked. */
function writeChecked(path: string, store: SecretStore): void {
  const old = entry(path);
  if (old) checkEntry(path, old);
  const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
  const bytes = new TextEncoder().encode(JSON.stringify(store, null, 2) + "\n");
  const file = Deno.openSync(temp, { write: true, createNew: true, mode: 0o600 });
  try {
    try {
      for (let at = 0; at < bytes.length;) at += file.writeSync(bytes.subarray(at));
      file.syncSync();
    } finally {
      file.close();
    }
    Deno.chmodSync(temp, 0o600); // whatever the umask left
    Deno.renameSync(temp, path);
  } catch (e) {
    try {
      Deno.removeSync(temp);
    } catch { /* already renamed or gone */ }
    throw e;
  }
}

/**
 * Runs `change` (a read, change and write of the file at `path`) holding an
 * exclusive lock of its folder (made 0700 and checked first): two
 * `sausage secret set` at once each take effect, neither writes over the
 * other's. The lock goes with the process, whatever ends it.
 */
function underLock<T>(path: string, change: () => T): T {
  const dir = folderOf(path);
  ensurePrivateDir(dir);
  const folder = Deno.openSync(dir, { read: true });
  try {
    folder.lockSync(true);
    return change();
  } finally {
    folder.close(); // releases the lock
  }
}

/** What is wrong with `value` as a secret's value; null when it is fine. */
export function secretValueProblem(value: string): string | null {
  if (value === "") return "the value is empty: nothing was set";
  const bytes = new TextEncoder().encode(value).length;
  if (bytes > MAX_SECRET_BYTES) {
    return `the value has ${bytes} bytes, more than ${MAX_SECRET_BYTES}: nothing was set`;
  }
  return null;
}

/**
 * Sets the secret `name` of the world `world` in the file at `path` to
 * `value` (read, changed, written whole). Throws for a bad name or value.
 */
export function setSecret(path: string, world: string, name: string, value: string): void {
  if (!isSecretName(name)) {
    throw new SecretStoreError(`"${name}" is not a secret's name (${SECRET_NAME_RULE})`);
  }
  const problem = secretValueProblem(value);
  if (problem) throw new SecretStoreError(problem);
  underLock(path, () => {
    const store = readSecretStore(path, world);
    store.world = world;
    store.secrets[name] = value;
    writeChecked(path, store);
  });
}

/** Removes the secret `name`; false when it was not set. */
export function removeSecret(path: string, world: string, name: string): boolean {
  return underLock(path, () => {
    const store = readSecretStore(path, world);
    if (!Object.hasOwn(store.secrets, name)) return false;
    delete store.secrets[name];
    writeChecked(path, store);
    return true;
  });
}
