/**
 * The sandboxes that run test instances: a pool whose world folder holds
 * each instance's empty world, and which may also read and write the
 * package folder (the tests' current folder). `runTests` makes one per test
 * binary; `cargo.build` makes one before the tests compile, so that the
 * sandboxes start while cargo works, and runs every test binary of the
 * crate on it ({@link TestSandboxes}).
 *
 * @module
 */

import { SandboxPool } from "../sandboxes/sandbox_pool.ts";
import { defaultLimits } from "../world/limits.ts";

/** Sandboxes for test instances, shared by several `runTests` calls and closed by their owner. */
export interface TestSandboxes {
  pool: SandboxPool;
  /** The pool's world folder: each run makes its instances' worlds in a folder of its own there. */
  worlds: string;
}

/**
 * A pool of `size` sandboxes for the tests of the package at `packageDir`,
 * whose instances' worlds are made in `worlds`, reading the transpiled
 * components under `cache`. Not started: `warm()` starts it.
 */
export function testPool(
  worlds: string,
  packageDir: string,
  cache: string,
  size: number,
): SandboxPool {
  const limits = defaultLimits();
  return new SandboxPool(
    {
      world: worlds,
      cache,
      folders: [packageDir],
      stallMs: limits.stall_ms,
      maxLine: limits.line_mib * 2 ** 20,
    },
    size,
  );
}

/** Sandboxes being started for a package's tests, and their end. */
export interface StartedSandboxes {
  /** The pool and its worlds folder, once the folder is made (the pool warming). */
  sandboxes: Promise<TestSandboxes>;
  /** Stops the pool (now, or as soon as it is made) and removes its worlds folder. */
  close(): Promise<void>;
}

/**
 * Starts sandboxes for the tests of the package at `packageDir` before its
 * test binary is built (they start while it compiles): a pool in a new
 * worlds folder, reading the runner's entries under `cache`.
 */
export function startTestSandboxes(packageDir: string, cache: string): StartedSandboxes {
  let closed = false;
  const sandboxes = Deno.mkdir(cache, { recursive: true })
    .then(() => Deno.makeTempDir({ prefix: "sausage-test-" }))
    .then((worlds) => {
      const pool = testPool(worlds, packageDir, cache, navigator.hardwareConcurrency || 1);
      if (closed) pool.close();
      else pool.warm().catch(() => {}); // a failure is the first test run's
      return { pool, worlds };
    });
  sandboxes.catch(() => {});
  return {
    sandboxes,
    async close() {
      closed = true;
      const made = await sandboxes.catch(() => null);
      made?.pool.close();
      if (made) await Deno.remove(made.worlds, { recursive: true }).catch(() => {});
    },
  };
}
