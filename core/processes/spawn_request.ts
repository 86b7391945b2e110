/**
 * What the supervisor is asked to start: a call of a plugin's method (a
 * guest, or a native method of the host), or a command (a component run
 * like a program, such as a test binary).
 *
 * @module
 */

import type { Compiled } from "../cache/component_cache.ts";
import type { Caller, OutputHandler, ProcessCall } from "./process.ts";
import type { ExtraPreopen } from "../../sandbox/hop/protocol.ts";

/** What to start for a call. */
export interface SpawnRequest extends ProcessCall {
  /** Run this component file instead of the plugin's current `plugin.wasm` (activation checks). */
  wasm?: string;
  /** The caller's time limit for the answer, in ms (`timeout_ms` of `core.call`); default `call_timeout_ms`. */
  timeoutMs?: number;
}

/**
 * What to start as a command: a component run like a program, with
 * arguments and no request (a test binary under the test runner). It is
 * an attached child of `caller`, and nobody waits for an answer.
 */
export interface CommandRequest {
  /** The `plugin` of its `info.json`, and the prefix of its pid. */
  name: string;
  /** What its `info.json` shows as the method (the test it runs). */
  label: string;
  /** The transpiled component. */
  component: Compiled;
  /** Its arguments, the program name first (what `wasi:cli/environment.get-arguments` returns). */
  args: string[];
  /** Its environment; `SAUSAGE_PID`, `SAUSAGE_PLUGIN` and `SAUSAGE_PARENT` are added. */
  env: [string, string][];
  /** Exactly `env`: no `SAUSAGE_*` variables added (a conformance case that counts them). */
  exactEnv?: boolean;
  /** Its initial current folder (default `/`). */
  cwd?: string;
  /** Host folders preopened beside `/`; the pool's sandboxes must be allowed to use them. */
  preopens?: ExtraPreopen[];
  /** Exactly `preopens`: no `/`, `/proc`, `/self` or `/run` (a wasi-testsuite case's folders). */
  onlyPreopens?: boolean;
  caller: Caller;
  /** Receives its text output (also journaled). */
  onOutput?: OutputHandler;
}

/** The call of a request, as its process keeps it. */
export function callOf(req: SpawnRequest): ProcessCall {
  return {
    plugin: req.plugin,
    method: req.method,
    params: req.params,
    caller: req.caller,
    callerId: req.callerId,
    detached: req.detached,
  };
}
