/**
 * Versions of a plugin with a given `rpc.discover` document: copies of
 * `tests/plugins/iface` built with the document fixed at build time, cached
 * by the document's hash.
 *
 * @module
 */

import { buildPlugin } from "../../core/cargo/cargo_build.ts";
import { sha256 } from "../../core/cache/sha256.ts";
import { cacheDir } from "../../core/paths.ts";

const TEMPLATE = decodeURIComponent(new URL("../plugins/iface", import.meta.url).pathname);

/** Builds a component whose `rpc.discover` answers `doc`; resolves with its path. */
export async function ifaceVersion(doc: unknown): Promise<string> {
  const text = JSON.stringify(doc);
  const template = await Deno.readTextFile(`${TEMPLATE}/src/main.rs`);
  const hash = (await sha256(new TextEncoder().encode(text + template))).slice(0, 16);
  const out = `${cacheDir()}/test-plugins/iface-${hash}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* build it */ }
  const dir = await Deno.makeTempDir({ prefix: "iface-" });
  await Deno.mkdir(`${dir}/src`);
  await Deno.copyFile(`${TEMPLATE}/Cargo.toml`, `${dir}/Cargo.toml`);
  await Deno.writeTextFile(`${dir}/src/main.rs`, template);
  await Deno.writeTextFile(`${dir}/doc.json`, text);
  await buildPlugin(dir, out);
  await Deno.remove(dir, { recursive: true });
  return out;
}
