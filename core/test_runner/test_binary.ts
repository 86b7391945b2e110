/**
 * A test binary as the runner gets it from cargo: a WASI core module
 * (`wasm32-wasip1`) or a component (`wasm32-wasip2`). A core module that
 * imports only preview 1 runs as it is, on the preview-1 binding; one that
 * also imports WASI 0.2 functions the binding has (the SDK's executor
 * imports `wasi:io/poll`) runs unadapted on it too, from a one-module
 * envelope ({@link leanEnvelope}); any other becomes a command component
 * with jco's preview-1 command adapter. Envelopes and adapted components are
 * kept in the cache folder under the module's hash, so a binary is prepared
 * once (without its DWARF: `strip_debug.ts`).
 *
 * Test binaries change with every build and are large (a debug build is
 * about 14 MB), so the runner keeps what it makes of them in folders of its
 * own under the cache (`test-components/`, `test-runner/`) and prunes them:
 * see {@link pruneTestCache}.
 *
 * @module
 */

import { sha256 } from "../cache/sha256.ts";
import { cacheDir } from "../paths.ts";
import { componentsRoot } from "../cache/cache_entries.ts";
import { ADAPT_VERSION, adaptCommand } from "../cargo/adapt_command.ts";
import { engineChoice, preview1MainOf } from "../cache/component_cache.ts";
import { unwrapCommandExport } from "../../wasm/command_export.ts";
import { Writer } from "../../wasm/binary.ts";
import { withoutDebugInfo } from "./strip_debug.ts";

/** The version field of a core module (a component has `0d 00 01 00`). */
const CORE_VERSION = [0x01, 0x00, 0x00, 0x00];

/** The kind of a `.wasm` file, from its first 8 bytes; throws for anything else. */
export function wasmKind(bytes: Uint8Array, path: string): "module" | "component" {
  const magic = bytes[0] === 0x00 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d;
  if (!magic || bytes.length < 8) throw new Error(`${path} is not a WebAssembly file`);
  return CORE_VERSION.every((b, i) => bytes[4 + i] === b) ? "module" : "component";
}

/**
 * True when a binary holds libtest's harness (its option text is in the
 * data): `#[test]` binaries do; doc tests and `harness = false` tests are
 * plain programs.
 */
export function isLibtestHarness(bytes: Uint8Array): boolean {
  return holds(bytes, "--include-ignored");
}

/**
 * True when `bytes` hold the ASCII `text` (a byte search: decoding a 6 MB
 * debug binary to a string to search it took 0.3 s).
 */
export function holds(bytes: Uint8Array, text: string): boolean {
  const needle = new TextEncoder().encode(text);
  const last = bytes.length - needle.length;
  for (
    let at = bytes.indexOf(needle[0]);
    at !== -1 && at <= last;
    at = bytes.indexOf(needle[0], at + 1)
  ) {
    let i = 1;
    while (i < needle.length && bytes[at + i] === needle[i]) i++;
    if (i === needle.length) return true;
  }
  return false;
}

/** Where the runner keeps the transpiled test components (a `ComponentCache` root). */
export function testTranspileCache(cache = cacheDir()): string {
  return `${cache}/test-runner`;
}

/** How many adapted and transpiled test binaries are kept at least. */
const KEEP = 24;
/** Entries younger than this are never pruned (another runner may be using them). */
const KEEP_MS = 60 * 60 * 1000;

/**
 * Removes the oldest adapted test components and transpiled test
 * components beyond the newest {@link KEEP}, unless used within the hour.
 */
export async function pruneTestCache(cache = cacheDir()): Promise<void> {
  const folders = [`${cache}/test-components`];
  const engines = componentsRoot(testTranspileCache(cache));
  try {
    for await (const e of Deno.readDir(engines)) {
      if (e.isDirectory) folders.push(`${engines}/${e.name}`);
    }
  } catch { /* nothing transpiled yet */ }
  for (const folder of folders) {
    const entries: { path: string; mtime: number }[] = [];
    try {
      for await (const e of Deno.readDir(folder)) {
        if (e.name.includes(".tmp-")) continue;
        const path = `${folder}/${e.name}`;
        const mtime = (await Deno.stat(path).catch(() => null))?.mtime?.getTime() ?? 0;
        entries.push({ path, mtime });
      }
    } catch {
      continue;
    }
    entries.sort((a, b) => b.mtime - a.mtime);
    const old = Date.now() - KEEP_MS;
    for (const { path, mtime } of entries.slice(KEEP)) {
      if (mtime < old) await Deno.remove(path, { recursive: true }).catch(() => {});
    }
  }
}

/** Bump when an envelope's bytes change, so cached envelopes are made again. */
const ENVELOPE_VERSION = 1;

/** A component's preamble: the magic and the component layer's version. */
const COMPONENT_PREAMBLE = [0x00, 0x61, 0x73, 0x6d, 0x0d, 0x00, 0x01, 0x00];

/** The component section that holds a core module. */
const CORE_MODULE_SECTION = 1;

/**
 * The envelope of a core module that the preview-1 binding can run once its
 * WASI 0.2 imports are taken as a component's (`preview1MainOf`): a
 * component whose one section is the module, without its DWARF and with
 * `cabi_realloc` out of wasm-ld's constructor wrapper (as `adaptCommand`
 * does). Only the preview-1 path reads it (its main module): it has no
 * types or canonical functions, so jco's glue cannot. Null when the module
 * imports anything the binding lacks.
 */
export function leanEnvelope(module: Uint8Array): Uint8Array | null {
  const main = unwrapCommandExport(withoutDebugInfo(module), "cabi_realloc");
  const out = new Writer().bytes(new Uint8Array(COMPONENT_PREAMBLE))
    .u8(CORE_MODULE_SECTION).u32(main.length).bytes(main).view().slice();
  return preview1MainOf(out) ? out : null;
}

/** A test binary ready to run. */
export interface TestBinary {
  /** A component file: the binary itself, or the adapted module in the cache. */
  component: string;
  /** True for a libtest harness (see {@link isLibtestHarness}). */
  harness: boolean;
}

/**
 * Prepares the test binary at `path`: a component, or a core module that
 * imports only preview 1, is used as it is; another core module becomes
 * `<cache>/test-components/<sha256>-e<version>.wasm` (its envelope, when
 * the binding can run it) or `…-a<version>.wasm` (adapted), made on first use.
 */
export async function testBinary(path: string, cache = cacheDir()): Promise<TestBinary> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (e) {
    throw new Error(`cannot read the test binary ${path}: ${e instanceof Error ? e.message : e}`);
  }
  const harness = isLibtestHarness(bytes);
  if (wasmKind(bytes, path) === "component") return { component: path, harness };
  // A module that imports only preview 1 runs as it is on our preview-1 binding: adapting
  // it into a component (1–3 s for a debug build) would only be undone by the cache.
  if (engineChoice() !== "jco") {
    try {
      if (preview1MainOf(bytes)) return { component: path, harness };
    } catch { /* it imports more than preview 1: adapted below, for jco's glue */ }
  }
  const dir = `${cache}/test-components`;
  const hash = await sha256(bytes);
  const lean = engineChoice() !== "jco";
  const adapted = `${hash}-a${ADAPT_VERSION}.wasm`;
  for (const made of lean ? [`${hash}-e${ENVELOPE_VERSION}.wasm`, adapted] : [adapted]) {
    const out = `${dir}/${made}`;
    try {
      await Deno.stat(out);
      await Deno.utime(out, new Date(), new Date()).catch(() => {}); // used now: pruned last
      return { component: out, harness };
    } catch { /* not made yet */ }
  }
  // The SDK's test binaries import `wasi:io/poll`, which the binding has: no adapter.
  const envelope = lean ? leanEnvelope(bytes) : null;
  if (envelope) {
    return { component: await keep(dir, `${hash}-e${ENVELOPE_VERSION}.wasm`, envelope), harness };
  }
  let component: Uint8Array;
  try {
    component = await adaptCommand(withoutDebugInfo(bytes));
  } catch (e) {
    throw new Error(`${path} is not a WASI command module: ${e instanceof Error ? e.message : e}`);
  }
  return { component: await keep(dir, adapted, component), harness };
}

/** Writes `bytes` to `<dir>/<name>` by a rename (a reader never sees half a file); its path. */
async function keep(dir: string, name: string, bytes: Uint8Array): Promise<string> {
  const out = `${dir}/${name}`;
  await Deno.mkdir(dir, { recursive: true });
  const tmp = `${out}.tmp-${crypto.randomUUID()}`;
  await Deno.writeFile(tmp, bytes);
  await Deno.rename(tmp, out);
  return out;
}
