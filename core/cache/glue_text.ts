/**
 * Edits to the JavaScript glue jco 1.12 generates (pinned, and part of the
 * compile cache's key). The glue asks for Node's `process` each time it is
 * instantiated (`typeof process !== 'undefined' && process.versions…`, and
 * `globalThis.process.env.JCO_DEBUG` in its debug log). In Deno the first
 * touch of `process` starts Node compatibility: ~50 ms of every sandbox's
 * first call. Neither answer matters to a sandbox (it hands the glue
 * compiled modules, and jco's debug log is not ours), so both become
 * `false`. A glue without these lines is left as it is.
 *
 * @module
 */

/** The expressions replaced, each by `false`. */
const NODE_PROBES = [
  "typeof process !== 'undefined' && process.versions && process.versions.node",
  "globalThis?.process?.env?.JCO_DEBUG",
];

/** The glue with its probes for Node replaced by `false`. */
export function withoutNodeProbes(glue: string): string {
  return NODE_PROBES.reduce((text, probe) => text.replaceAll(probe, "false"), glue);
}
