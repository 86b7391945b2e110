/**
 * `sausage test <binary.wasm> [libtest args]`: the test runner, for cargo
 * (`CARGO_TARGET_WASM32_WASIP1_RUNNER="sausage test"`, and the same for
 * `WASIP2`). Runs each test of the binary in its own instance and prints
 * libtest's report; exits with 101 when a test failed, as libtest does.
 *
 * @module
 */

import { openTestHost } from "../core/control/world_server.ts";
import { UsageError } from "./args.ts";
import { isLibtestHarness, runTests, TestArgsError } from "../core/mod.ts";
import { holds } from "../core/test_runner/test_binary.ts";

/** Usage of `test`. */
export const TEST_USAGE = "sausage test <binary.wasm> [filters] [--exact] [--skip S] [--ignored] " +
  "[--include-ignored] [--list] [-q] [--show-output] [--test-threads N]";

const encoder = new TextEncoder();

function write(to: { writeSync(b: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let n = 0;
  while (n < bytes.length) n += to.writeSync(bytes.subarray(n));
}

/** Runs the subcommand; resolves with the exit code. */
export async function test(args: string[]): Promise<number> {
  const [binary, ...rest] = args;
  if (binary === undefined || binary.startsWith("-")) throw new UsageError(`usage: ${TEST_USAGE}`);
  // A plugin's own binary (not its test binary) would wait for a request on stdin.
  const bytes = await Deno.readFile(binary).catch(() => undefined);
  if (bytes && !isLibtestHarness(bytes) && holds(bytes, "rpc.discover")) {
    throw new Error(
      `${binary} is a plugin's binary, not a test binary: sausage test runs the binaries that ` +
        "cargo test builds (run cargo test in the plugin's folder); call a plugin with sausage call",
    );
  }
  const env = Deno.env.toObject();
  try {
    return await runTests({
      binary,
      args: rest,
      packageDir: env.CARGO_MANIFEST_DIR ?? Deno.cwd(),
      env,
      write: (text) => write(Deno.stdout, text),
      writeErr: (text) => write(Deno.stderr, text),
      openHost: openTestHost,
    });
  } catch (e) {
    if (e instanceof TestArgsError) throw new UsageError(e.message);
    throw e;
  }
}
