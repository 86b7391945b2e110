/**
 * Where the control socket of a world lives: a Unix socket in a private
 * folder (mode 0700, owned by the user) outside every world, named by a hash
 * of the world's path. Guests cannot reach it: WASI has no Unix sockets, the
 * sandboxes' permissions do not include the folder, and nothing in the world
 * names it. The name is short so the path stays far below the 108-byte limit
 * of Unix socket paths, however deep the world is.
 *
 * The folder is `$XDG_RUNTIME_DIR/sausage` when that variable is set (a
 * per-user tmpfs on systemd machines), otherwise `/tmp/sausage-<uid>`;
 * when another user made that one first (a squatter), `~/.sausage/run`,
 * with a message (`runtimeDir`); `SAUSAGE_RUNTIME_DIR` overrides them all.
 *
 * @module
 */

import { sha256 } from "../cache/sha256.ts";

/**
 * The method that must open every connection to the socket (here, not in
 * `control_server.ts`, so that a client loads no more than this file).
 */
export const HELLO = "$/hello";

/** The longest Unix socket path the kernel accepts (`sun_path` less its NUL). */
const UNIX_PATH_MAX = 107;

/**
 * This process's user id: `Deno.uid()` (the launcher grants
 * `--allow-sys=uid`), else the owner of a temporary file it makes (a
 * process started with fewer permissions); null when neither works.
 */
export function userId(): number | null {
  if (uid !== undefined) return uid;
  try {
    uid = Deno.uid();
    if (uid !== null) return uid;
  } catch { /* no sys permission */ }
  try {
    const probe = Deno.makeTempFileSync({ prefix: "sausage-uid-" });
    try {
      uid = Deno.statSync(probe).uid;
    } finally {
      Deno.removeSync(probe);
    }
  } catch {
    uid = null;
  }
  return uid;
}

let uid: number | null | undefined;

/** What {@link runtimeDir} passed over because another user owns it (for the message). */
let squatted: { dir: string; uid: number } | null = null;

/**
 * Whether `dir` can be this user's private folder: missing (it will be
 * made), or a real folder that this user owns. A folder another user made
 * first (a squatter on `/tmp/sausage-<uid>`), or a link, cannot.
 */
function usable(dir: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(dir);
  } catch (e) {
    return e instanceof Deno.errors.NotFound;
  }
  const uid = userId();
  if (info.isDirectory && (uid === null || info.uid === uid)) return true;
  if (info.uid !== null && info.uid !== uid) squatted ??= { dir, uid: info.uid };
  return false;
}

/**
 * The private folder of this user's control sockets (not created): the
 * first usable of `$XDG_RUNTIME_DIR/sausage`, `$TMPDIR/sausage-<uid>` (TMPDIR
 * defaults to `/tmp`) and `~/.sausage/run`, so that a folder another user
 * made first is passed over, the same way by the host and its clients.
 * `SAUSAGE_RUNTIME_DIR` overrides them all.
 */
export function runtimeDir(): string {
  const explicit = Deno.env.get("SAUSAGE_RUNTIME_DIR");
  if (explicit) return explicit;
  const candidates: string[] = [];
  const xdg = Deno.env.get("XDG_RUNTIME_DIR");
  if (xdg) candidates.push(`${xdg}/sausage`);
  const tmp = (Deno.env.get("TMPDIR") || "/tmp").replace(/\/+$/, "") || "/tmp";
  candidates.push(`${tmp}/sausage-${userId() ?? "user"}`);
  const home = Deno.env.get("HOME");
  if (home) candidates.push(`${home}/.sausage/run`);
  const found = candidates.find(usable);
  if (found) return found;
  throw new Error(
    `no private folder for control sockets: ${candidates.join(", ")} belong to another user ` +
      `or are not folders; set SAUSAGE_RUNTIME_DIR to a folder of yours`,
  );
}

/** Says once (to `report`) which folder was passed over because another user made it. */
export function reportSquatter(using: string, report: (line: string) => void): void {
  if (!squatted) return;
  report(
    `sausage: ${squatted.dir} belongs to another user (uid ${squatted.uid}), who made it first; ` +
      `control sockets are in ${using} instead (remove ${squatted.dir} as root to use it again)`,
  );
  squatted = null;
}

/**
 * Creates the private folder when missing and checks it: a real folder (not
 * a link), owned by this user, mode 0700 (tightened when looser). Throws a
 * one-line error when another user owns it.
 */
export function ensurePrivateDir(dir: string): void {
  try {
    Deno.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
  }
  const info = Deno.lstatSync(dir);
  if (!info.isDirectory) throw new Error(`${dir} must be a folder, not a link or a file`);
  const uid = userId();
  if (uid !== null && info.uid !== uid) {
    throw new Error(`${dir} belongs to another user (uid ${info.uid}); set SAUSAGE_RUNTIME_DIR`);
  }
  if (((info.mode ?? 0) & 0o077) !== 0) Deno.chmodSync(dir, 0o700);
}

/**
 * The name of the world at `root` (an absolute real path) in folders outside
 * every world: 24 hex digits of the SHA-256 of the path. The control socket
 * and the secrets file (`core/secrets/secrets_path.ts`) are named by it.
 */
export async function worldKey(root: string): Promise<string> {
  return (await sha256(root)).slice(0, 24);
}

/** The control socket path of the world at `root` (an absolute real path). */
export async function controlSocketPath(root: string): Promise<string> {
  const name = `${await worldKey(root)}.sock`;
  const path = `${runtimeDir()}/${name}`;
  if (new TextEncoder().encode(path).length > UNIX_PATH_MAX) {
    throw new Error(
      `the control socket path ${path} is longer than ${UNIX_PATH_MAX} bytes: set SAUSAGE_RUNTIME_DIR to a shorter folder`,
    );
  }
  return path;
}
