/**
 * The benchmark's jco alternatives (`bench/suite.ts`, part 4): the probe
 * component transpiled once by jco (the version this project pins), then
 * run the two ways a user might run it with jco's preview2-shim instead of
 * Sausage:
 *
 * - `subprocess`: the ES module glue, its WASI imports mapped to the shim's
 *   Node.js build by file path, run by `jco_runner.ts` in a Deno process of
 *   its own per call;
 * - `inProcess`: the `instantiation: "async"` glue (sync mode, no JSPI),
 *   instantiated afresh per call in this process against the shim's browser
 *   build, whose stdin and stdout are set per instance.
 *
 * @module
 */

import * as cli from "../../node_modules/@bytecodealliance/preview2-shim/lib/browser/cli.js";
import * as clocks from "../../node_modules/@bytecodealliance/preview2-shim/lib/browser/clocks.js";
import * as filesystem from "../../node_modules/@bytecodealliance/preview2-shim/lib/browser/filesystem.js";
import * as io from "../../node_modules/@bytecodealliance/preview2-shim/lib/browser/io.js";
import * as random from "../../node_modules/@bytecodealliance/preview2-shim/lib/browser/random.js";

const SHIM = decodeURIComponent(
  new URL("../../node_modules/@bytecodealliance/preview2-shim/lib/", import.meta.url).pathname,
);
const RUNNER = decodeURIComponent(new URL("./jco_runner.ts", import.meta.url).pathname);

/** Transpiles `component` into a new temporary folder; resolves with the folder. */
async function transpiled(component: string, options: Record<string, unknown>): Promise<string> {
  const { transpile } = await import("@bytecodealliance/jco"); // large: loaded when used
  const { files } = await transpile(await Deno.readFile(component), {
    name: "plugin",
    ...options,
    ...{ typescript: false }, // not in jco's .d.ts, read by transpile()
  });
  const dir = await Deno.makeTempDir({ prefix: "sausage-bench-jco-" });
  const pairs: [string, Uint8Array][] = Array.isArray(files) ? files : Object.entries(files);
  for (const [name, bytes] of pairs) await Deno.writeFile(`${dir}/${name}`, bytes);
  return dir;
}

/**
 * The command that runs `component` once in a Deno process of its own
 * (`deno run -A --no-config jco_runner.ts <glue>`), and the folder to remove
 * afterwards.
 */
export async function subprocess(component: string): Promise<{ args: string[]; dir: string }> {
  const map: Record<string, string> = {};
  for (const pkg of ["cli", "clocks", "filesystem", "http", "io", "random", "sockets"]) {
    map[`wasi:${pkg}/*`] = `file://${SHIM}nodejs/${pkg}.js#*`;
  }
  const dir = await transpiled(component, { map });
  return { args: ["run", "-A", "--no-config", RUNNER, `file://${dir}/plugin.js`], dir };
}

/** What the browser shim's modules export, by WASI package. */
const SHIM_MODULES: Record<string, Record<string, unknown>> = {
  cli,
  clocks,
  filesystem,
  io,
  random,
};

/** A `wasi:<package>/<interface>` import key to the browser shim's export for it. */
function shimImport(key: string): unknown {
  const [, pkg, iface] = key.match(/^wasi:([a-z]+)\/([a-z-]+)$/) ?? [];
  const value = SHIM_MODULES[pkg]?.[iface.replace(/-([a-z])/g, (_, c) => c.toUpperCase())];
  if (!value) throw new Error(`the browser shim has no ${key}`);
  return value;
}

/** The stream error the glue passes to the guest as `stream-error::closed`. */
const CLOSED = { tag: "closed" };

/**
 * A function that runs `component` once, in a fresh instance in this
 * process, with `request` on its stdin, and resolves with its stdout. The
 * compiled core modules are shared; the instances and their memories are
 * not. The shim's streams are module-wide, so calls must not overlap.
 */
export async function inProcess(
  component: string,
): Promise<{ once: (request: Uint8Array) => Promise<string>; dir: string }> {
  const dir = await transpiled(component, { instantiation: "async" });
  const { instantiate } = await import(`file://${dir}/plugin.js`);
  const modules = new Map<string, WebAssembly.Module>();
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.name.endsWith(".wasm")) {
      modules.set(
        entry.name,
        await WebAssembly.compile(await Deno.readFile(`${dir}/${entry.name}`)),
      );
    }
  }
  const imports = new Proxy({}, { get: (_, key) => shimImport(String(key)) });
  const decoder = new TextDecoder();
  const once = async (request: Uint8Array): Promise<string> => {
    let input: Uint8Array | undefined = request;
    let output = "";
    cli._setStdin({
      blockingRead(len: bigint) {
        if (!input?.length) throw CLOSED;
        const chunk = input.subarray(0, Number(len));
        input = input.subarray(chunk.length);
        return chunk;
      },
    });
    cli._setStdout({
      write(bytes: Uint8Array) {
        output += decoder.decode(bytes);
      },
      blockingFlush() {},
    });
    const { run } = await instantiate((name: string) => modules.get(name), imports);
    try {
      run.run();
    } catch (e) {
      if (!(e as { exitError?: boolean }).exitError || (e as { code: number }).code !== 0) throw e;
    }
    return output;
  };
  return { once, dir };
}
