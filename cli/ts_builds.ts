/**
 * `sausage build` of TypeScript plugins (a `source/plugin.ts` and no
 * `source/Cargo.toml`): built in the CLI's own process by
 * `core/typescript/ts_build.ts` into `state/typescript/builds/<n>/<plugin>.wasm`
 * after its tests (`*_test.ts`, built into `<plugin>.tests.wasm` and run by
 * `sausage test`'s runner, each test a process in an empty world)
 * (with its document beside it, `<plugin>.openrpc.json`, as `cargo.build`
 * keeps one), then activated with the other plugins of the command through
 * the same `core.activate`. The build answers as `cargo.build` does, so the
 * round (`buildAndActivate`) is the same for every language.
 *
 * @module
 */

import type { World } from "../core/world/world.ts";
import { openTestHost } from "../core/control/world_server.ts";
import { runTests } from "../core/mod.ts";
import { buildTsPlugin } from "../core/typescript/ts_build.ts";
import { tsDocument } from "../core/typescript/ts_document.ts";
import { ErrorCode } from "../rpc/errors.ts";
import type { Send } from "./world_session.ts";
import type { Response } from "../rpc/message.ts";

/** True when `plugin` of `world` is a TypeScript plugin: `source/plugin.ts` and no `Cargo.toml`. */
export function isTsPlugin(world: World, plugin: string): boolean {
  const source = `${world.pluginDir(plugin)}/source`;
  const exists = (p: string) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  };
  return exists(`${source}/plugin.ts`) && !exists(`${source}/Cargo.toml`);
}

/** The next build folder of `state/typescript/builds/` (1, 2, …), made. */
function nextBuildDir(world: World): { host: string; guest: string } {
  const root = `${world.root}/state/typescript/builds`;
  Deno.mkdirSync(root, { recursive: true });
  let n = 0;
  for (const e of Deno.readDirSync(root)) {
    if (/^\d+$/.test(e.name)) n = Math.max(n, Number(e.name));
  }
  for (;; n++) {
    try {
      Deno.mkdirSync(`${root}/${n + 1}`);
      return { host: `${root}/${n + 1}`, guest: `/state/typescript/builds/${n + 1}` };
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw e;
    }
  }
}

/**
 * `send` with `cargo.build` of a TypeScript plugin made here instead:
 * answered as `cargo.build` answers (`{wasm, tests, warnings}`, or -32000
 * with `data: {step: "build", output}`).
 */
export function withTsBuilds(world: World, send: Send): Send {
  return async (method, params) => {
    const plugin = params.plugin;
    if (method !== "cargo.build" || typeof plugin !== "string" || !isTsPlugin(world, plugin)) {
      return await send(method, params);
    }
    const source = `${world.pluginDir(plugin)}/source`;
    const dir = nextBuildDir(world);
    let tests = { passed: 0, failed: 0, output: "" };
    try {
      tests = await runTsTests(source, plugin, `${dir.host}/${plugin}.tests.wasm`);
      if (tests.failed) {
        return failed(
          `${plugin} was not built: ${tests.failed} of ${tests.passed + tests.failed} tests failed`,
          { step: "test", output: tests.output, tests },
        );
      }
      await buildTsPlugin(source, plugin, `${dir.host}/${plugin}.wasm`);
      await Deno.writeTextFile(
        `${dir.host}/${plugin}.openrpc.json`,
        JSON.stringify(tsDocument(source, plugin, "0.1.0"), null, 2),
      );
    } catch (e) {
      const output = (e as { output?: unknown }).output;
      return failed(e instanceof Error ? e.message : String(e), {
        step: "build",
        output: typeof output === "string" ? output : "",
      });
    }
    return {
      jsonrpc: "2.0",
      id: 0,
      result: { wasm: `${dir.guest}/${plugin}.wasm`, tests, warnings: [] },
    };
  };
}

/** A failed step, answered as `cargo.build` answers one. */
function failed(message: string, data: Record<string, unknown>): Response {
  return { jsonrpc: "2.0", id: 0, error: { code: ErrorCode.BuildFailed, message, data } };
}

/**
 * Builds the plugin's test binary to `out` and runs it as `sausage test`
 * does; resolves with the counts and libtest's report. No test files: no run.
 */
async function runTsTests(
  source: string,
  plugin: string,
  out: string,
): Promise<{ passed: number; failed: number; output: string }> {
  const hasTests = [...Deno.readDirSync(source)].some((e) =>
    e.isFile && (e.name.endsWith("_test.ts") || e.name.endsWith(".test.ts"))
  );
  if (!hasTests) return { passed: 0, failed: 0, output: "" };
  await buildTsPlugin(source, plugin, out, true);
  let output = "";
  await runTests({
    binary: out,
    args: [],
    packageDir: source,
    env: {},
    write: (text) => output += text,
    writeErr: (text) => output += text,
    openHost: openTestHost,
  });
  const totals = output.match(/test result: \w+\. (\d+) passed; (\d+) failed/);
  return { passed: Number(totals?.[1] ?? 0), failed: Number(totals?.[2] ?? 0), output };
}
