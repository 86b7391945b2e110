/**
 * Turns a suite's `wasm32-wasip1` core module into a command component the
 * way the host's builds and `sausage test` do (`core/cargo/adapt_command.ts`:
 * jco's `componentNew` with its preview-1 command adapter), or with another
 * adapter file to compare. Adapted components are kept under the cache
 * folder by the hash of the module, the adapter and the adaptation's
 * version, so each is made once.
 *
 * @module
 */

import { sha256 } from "../../core/cache/sha256.ts";
import { ADAPT_VERSION, adaptCommand } from "../../core/cargo/adapt_command.ts";

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
    `${await sha256(bytes)} ${await sha256(adapterBytes)} a${ADAPT_VERSION}`,
  ));
  const out = `${dir}/${key}.wasm`;
  try {
    await Deno.stat(out);
    return out;
  } catch { /* not adapted yet */ }
  const component = await adaptCommand(bytes, adapterBytes);
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${out}.tmp-${crypto.randomUUID()}`;
  await Deno.writeFile(tmp, component);
  await Deno.rename(tmp, out);
  return out;
}
