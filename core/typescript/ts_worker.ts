/**
 * The TypeScript compiler off the host's thread (`ts_compiler.ts` starts
 * it): a plugin's check, document and bundle take the compiler seconds of
 * CPU on a loaded machine (loading it ~1 s, each check 0.1–1.5 s), which on
 * the host's own thread would stall every call and every sandbox's
 * heartbeat. It receives `{id, root, name, out, tests}`, runs
 * `buildTsPlugin` and answers `{id}` or `{id, error: {message, output}}`.
 *
 * @module
 */

/// <reference lib="deno.worker" />

import { buildTsPlugin } from "./ts_build.ts";

/** A build the host asks for. */
export interface TsWorkerRequest {
  id: number;
  root: string;
  name: string;
  out: string;
  tests: boolean;
}

/** Its answer: nothing, or the error's message and the compiler's output. */
export interface TsWorkerAnswer {
  id: number;
  error?: { message: string; output: string };
}

self.onmessage = async (e: MessageEvent<TsWorkerRequest>) => {
  const { id, root, name, out, tests } = e.data;
  try {
    await buildTsPlugin(root, name, out, tests);
    self.postMessage({ id } satisfies TsWorkerAnswer);
  } catch (err) {
    const output = (err as { output?: unknown }).output;
    self.postMessage(
      {
        id,
        error: {
          message: err instanceof Error ? err.message : String(err),
          output: typeof output === "string" ? output : "",
        },
      } satisfies TsWorkerAnswer,
    );
  }
};
