/**
 * Turns a suite's `wasm32-wasip1` core module into a command component the
 * way the host's builds do (`core/build/cargo_build.ts`): jco's
 * `componentNew` with a preview-1 command adapter, by default the one jco
 * ships. Adapted components are kept under the cache folder by the hash of
 * the module and the adapter, so each is made once.
 *
 * @module
 */

import { sha256 } from "../../core/file_hash.ts";

/** The preview-1 command adapter of the pinned jco. */
export async function jcoAdapterPath(): Promise<string> {
  const { preview1AdapterCommandPath } = await import("@bytecodealliance/jco");
  const p = preview1AdapterCommandPath();
  return typeof p === "string" ? p : decodeURIComponent(p.pathname);
}

/**
 * The component of the core module at `module` adapted with the adapter at
 * `adapter`, made into `<dir>/<hash>.wasm` on first use; resolves with its path.
 */
export async function adaptModule(module: string, adapter: string, dir: string): Promise<string> {
  const bytes = await Deno.readFile(module);
  const adapterBytes = await Deno.readFile(adapter);
  const key = await sha256(new TextEncoder().encode(
    `${await sha256(bytes)} ${await sha256(adapterBytes)}`,
  ));
  const out = `${dir}/${key}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* not adapted yet */ }
  const { componentNew } = await import("@bytecodealliance/jco");
  const component = await componentNew(bytes, [["wasi_snapshot_preview1", adapterBytes]]);
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${out}.tmp-${crypto.randomUUID()}`;
  await Deno.writeFile(tmp, component);
  await Deno.rename(tmp, out);
  return out;
}
