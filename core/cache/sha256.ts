/**
 * The project's one SHA-256-to-hex, on WebCrypto. Its own file, apart from
 * `file_hash.ts`, so that a client (`sausage call`, which names the control
 * socket by a hash) loads no `node:` module: the first one starts Deno's Node
 * layer, ~40 ms of a command that takes ~180.
 *
 * @module
 */

/** Hex SHA-256 of some bytes, or of a text's UTF-8 bytes. */
export async function sha256(data: Uint8Array | string): Promise<string> {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
