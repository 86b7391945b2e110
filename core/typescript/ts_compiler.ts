/**
 * Builds TypeScript plugins in a worker (`ts_worker.ts`), so the TypeScript
 * compiler never runs on the host's thread. One worker serves the builds of
 * a process one after another; it ends when no build came for
 * {@link IDLE_MS}, so a host that builds nothing keeps no compiler in
 * memory, and a burst of builds (tests, then the plugin; `dev`'s saves)
 * loads it once. A live worker keeps the process alive until then (the
 * CLI ends with `Deno.exit`). `sausage dev` keeps it for its whole run
 * ({@link keepCompilerLoaded}).
 *
 * @module
 */

import { TsBuildError } from "./ts_build_error.ts";
import type { TsWorkerAnswer, TsWorkerRequest } from "./ts_worker.ts";

/** How long an idle worker is kept (loading the compiler costs about a second). */
export const IDLE_MS = 10_000;

let worker: Worker | undefined;
let keep = false;
let idle: ReturnType<typeof setTimeout> | undefined;
let next = 0;
const waiting = new Map<number, { resolve: () => void; reject: (e: unknown) => void }>();

/** The worker, started when missing. */
function theWorker(): Worker {
  if (idle !== undefined) clearTimeout(idle);
  idle = undefined;
  if (worker) return worker;
  const w = new Worker(new URL("./ts_worker.ts", import.meta.url), { type: "module" });
  w.onmessage = (e: MessageEvent<TsWorkerAnswer>) => {
    const { id, error } = e.data;
    const wait = waiting.get(id);
    waiting.delete(id);
    if (error) wait?.reject(new TsBuildError(error.message, error.output));
    else wait?.resolve();
    if (!waiting.size) stopWhenIdle();
  };
  w.onerror = (e) => {
    e.preventDefault();
    for (const wait of waiting.values()) {
      wait.reject(new TsBuildError(`the TypeScript compiler's worker failed: ${e.message}`, ""));
    }
    waiting.clear();
    stop();
  };
  worker = w;
  return w;
}

/** Ends the worker now. */
function stop(): void {
  worker?.terminate();
  worker = undefined;
  if (idle !== undefined) clearTimeout(idle);
  idle = undefined;
}

/** Ends the worker after {@link IDLE_MS} without a build (a timer that keeps no process alive). */
function stopWhenIdle(): void {
  if (keep) return;
  const timer = setTimeout(stop, IDLE_MS);
  Deno.unrefTimer(timer);
  idle = timer;
}

/**
 * `buildTsPlugin(root, name, out, tests)` (`ts_build.ts`) in the worker;
 * rejects with a {@linkcode TsBuildError} as it does.
 */
export function buildInWorker(
  root: string,
  name: string,
  out: string,
  tests = false,
): Promise<void> {
  const id = ++next;
  return new Promise<void>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    theWorker().postMessage({ id, root, name, out, tests } satisfies TsWorkerRequest);
  });
}

/**
 * Keeps the compiler loaded for the rest of the process (`sausage dev`, where
 * every save of a TypeScript plugin builds it: loading the compiler costs
 * about a second of each build otherwise); with `now`, loads it at once.
 */
export function keepCompilerLoaded(now: boolean): void {
  keep = true;
  if (idle !== undefined) clearTimeout(idle);
  idle = undefined;
  if (now) theWorker();
}
