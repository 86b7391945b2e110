/**
 * cargo's note that one of our patches went unused (the wit-bindgen stand-in
 * in every plugin without the `wasi` crate, the SDK crates in plugins without
 * the SDK), with its help lines: noise to an author, left out of a build's
 * and a test run's output.
 *
 * @module
 */

/** The note's first line, for one of the crates `cargo_build.ts` patches in. */
const UNUSED_PATCH =
  /^warning: patch `(wit-bindgen|sausage-plugin|sausage-plugin-macros) v[^`]*` was not used in the crate graph/;

/** The note's following lines: `help:` and indented text. */
const HELP_LINE = /^(help:|\s+[a-z])/;

/**
 * A filter of cargo's stderr lines, fed in order: false for the lines of an
 * unused-patch note, true for the rest.
 */
export function unusedPatchFilter(): (line: string) => boolean {
  let skipping = false;
  return (line) => {
    if (UNUSED_PATCH.test(line)) return !(skipping = true);
    if (skipping && HELP_LINE.test(line)) return false;
    skipping = false;
    return true;
  };
}
