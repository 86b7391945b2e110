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
