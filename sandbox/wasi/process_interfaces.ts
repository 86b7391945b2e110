/**
 * The WASI 0.2 interfaces of one process that both paths share: jco's glue
 * calls them (with the filesystem added), and so does the lean path's
 * canonical-ABI binding for an SDK plugin's direct imports
 * (`sandbox/canonical_abi/`), which serves files through preview 1.
 *
 * @module
 */

import { cliInterfaces } from "./cli.ts";
import { clockInterfaces } from "./clocks.ts";
import {
  type ByteSink,
  errorInterface,
  InputStream,
  OutputStream,
  streamsInterface,
} from "./streams.ts";
import type { ByteQueue } from "./pipes.ts";
import { pollInterface } from "./poll.ts";
import { randomInterfaces } from "./random.ts";
import { networkInterfaces } from "./network.ts";
import type { ProcessResources } from "./resources.ts";

/** What the shared WASI 0.2 interfaces of one process are made from. */
export interface ProcessWasi {
  env: [string, string][];
  /** `get-arguments` (default none). */
  args?: string[];
  /** `initial-cwd` (default `/`). */
  cwd?: string;
  stdin: ByteQueue;
  stdout: ByteSink;
  stderr: ByteSink;
  resources: ProcessResources;
}

/**
 * The WASI 0.2 interfaces of one process, keyed `wasi:io/streams` (less the
 * filesystem).
 */
export function wasiInterfaces(p: ProcessWasi): Record<string, unknown> {
  return {
    ...cliInterfaces({
      env: p.env,
      args: p.args ?? [],
      cwd: p.cwd ?? "/",
      stdin: new InputStream(p.stdin),
      stdout: new OutputStream(p.stdout),
      stderr: new OutputStream(p.stderr),
    }),
    ...clockInterfaces(),
    ...randomInterfaces(),
    "wasi:io/poll": pollInterface,
    "wasi:io/streams": streamsInterface,
    "wasi:io/error": errorInterface,
    ...networkInterfaces(p.resources),
  };
}
