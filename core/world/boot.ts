/**
 * Boot: the calls that `config/boot.json` lists, made by the core when the
 * host starts, each detached, each and its outcome journaled and reported.
 *
 * @module
 */

import type { Journal } from "../journal/journal.ts";
import type { ControlServer } from "../control/control_server.ts";
import type { World } from "./world.ts";
import { Connection } from "../../rpc/connection.ts";
import { readConfigFile } from "./config_file.ts";

/** One call of `config/boot.json`. */
export interface BootCall {
  /** The method called. */
  method: string;
  /** Its params (an object). */
  params: Record<string, unknown>;
}

/**
 * The calls of the world's `config/boot.json` (JSONC; an empty list without
 * the file). Throws a one-line error that names the file and the problem (a
 * syntax error: its line and column). Here, not in `World`, so that a client
 * opening a world loads no config parser.
 */
export function bootCalls(world: World): BootCall[] {
  const calls = readConfigFile(world.root, "config/boot.json");
  if (calls === undefined) return [];
  if (!Array.isArray(calls)) {
    throw new Error("config/boot.json must be a list of {method, params}");
  }
  return calls.map((c, i) => {
    if (typeof c?.method !== "string") {
      throw new Error(`config/boot.json entry ${i} has no "method"`);
    }
    const params = c.params ?? {};
    if (typeof params !== "object" || Array.isArray(params)) {
      throw new Error(`config/boot.json entry ${i}: params must be an object`);
    }
    return { method: c.method, params };
  });
}

/**
 * Makes the world's boot calls (detached, as `core`) without waiting for
 * them: each is journaled (`boot`), and so is its outcome (`boot-result`),
 * which also goes to `report` as a line. A `config/boot.json` that cannot be
 * used (bad JSONC, not a list of calls) makes no calls: its error is
 * journaled (`config-error`) and reported, and the host goes on.
 */
export function makeBootCalls(
  world: World,
  control: ControlServer,
  journal: Journal,
  report?: (line: string) => void,
): void {
  let calls: BootCall[];
  try {
    calls = bootCalls(world);
  } catch (e) {
    // A bad file does not stop the host: it boots nothing, and says why.
    const error = `${(e as Error).message}; no boot calls were made`;
    journal.coreEvent("config-error", { file: "config/boot.json", error });
    report?.(`boot: ${error}`);
    return;
  }
  // The core's own client, as the caller `core`: it lasts as long as the host.
  let count = 0;
  const boot = new Connection(control.link("core", true).transport, {
    nextId: () => `core-${++count}`,
  });
  for (const call of calls) {
    journal.coreEvent("boot", { ...call });
    boot.request("core.call", {
      method: call.method,
      params: call.params,
      detach: true,
    }).then((res) => {
      const outcome = "error" in res && res.error
        ? { error: res.error }
        : { result: (res as { result: unknown }).result };
      journal.coreEvent("boot-result", { method: call.method, ...outcome });
      report?.(
        "error" in outcome
          ? `boot: ${call.method} failed: ${outcome.error!.message}`
          : `boot: ${call.method} -> ${JSON.stringify(outcome.result)}`,
      );
    });
  }
}
