/**
 * The secret of `sausage mcp <world> --http <port>`. The control channel
 * lets in only the world's owner because its socket sits in a private 0700
 * folder; TCP has no such check, so the HTTP server asks every request for
 * a token that only the owner can read: a file in that same private folder
 * (mode 0600), named like the world's control socket, made once per world
 * and kept (so an MCP client's configuration stays valid).
 *
 * @module
 */

import {
  controlSocketPath,
  ensurePrivateDir,
  runtimeDir,
  userId,
} from "../core/control/control_path.ts";

/** Where the token of a world is kept. */
async function tokenPath(root: string): Promise<string> {
  return (await controlSocketPath(root)).replace(/\.sock$/, ".mcp-token");
}

/** The token of a world: read, or made when there is none (or it is not safe). */
export async function httpToken(root: string): Promise<{ token: string; path: string }> {
  ensurePrivateDir(runtimeDir());
  const path = await tokenPath(root);
  try {
    const info = Deno.lstatSync(path);
    const uid = userId();
    const safe = info.isFile && ((info.mode ?? 0) & 0o077) === 0 &&
      (uid === null || info.uid === uid);
    const token = safe ? Deno.readTextFileSync(path).trim() : "";
    if (/^[0-9a-f]{64}$/.test(token)) return { token, path };
    Deno.removeSync(path);
  } catch { /* none yet */ }
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  const f = Deno.openSync(path, { write: true, createNew: true, mode: 0o600 });
  try {
    f.writeSync(new TextEncoder().encode(token + "\n"));
  } finally {
    f.close();
  }
  return { token, path };
}

/** Compares a request's `Authorization` header with the token in constant time. */
export function authorized(header: string | null, token: string): boolean {
  const given = new TextEncoder().encode(header ?? "");
  const want = new TextEncoder().encode(`Bearer ${token}`);
  let diff = given.length ^ want.length;
  for (let i = 0; i < want.length; i++) diff |= want[i] ^ (given[i] ?? 0);
  return diff === 0;
}
