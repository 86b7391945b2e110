/**
 * Helpers the unit tests of `sandbox/` share.
 *
 * @module
 */

/** What `f` threw (it must throw). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error("it did not throw");
}
