/**
 * The supervisor (section 4.6): the core's one entry to the life of
 * processes. It starts a process for a call (a guest: `guest_spawn.ts`; a
 * native method of the host: `native_process.ts`) or a command, within the
 * world's limits (`start_checks.ts`); finds a caller's call by its request
 * id (`calls_by_id.ts`); and stops, kills and ends processes
 * (`process_lifecycle.ts`). Their lines go to the process journal
 * (`process_log.ts`).
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import type { Id } from "../../rpc/message.ts";
import type { ComponentCache } from "../cache/component_cache.ts";
import type { Journal } from "../journal/journal.ts";
import { defaultLimits, type Limits } from "../world/limits.ts";
import { FailingPlugins } from "./failing_plugins.ts";
import type { GuestPlacer } from "../sandboxes/guest_runner.ts";
import { GuestSpawner, type LineHandler, type SharedMounts } from "./guest_spawn.ts";
import { type NativeMethod, startNative } from "./native_process.ts";
import type { Caller, ExitInfo, Process } from "./process.ts";
import { type EndHandler, Lifecycle, STOP_GRACE_MS } from "./process_lifecycle.ts";
import { ProcessLog } from "./process_log.ts";
import type { ProcessTable } from "./process_table.ts";
import type { CommandRequest, SpawnRequest } from "./spawn_request.ts";
import { StartChecks } from "./start_checks.ts";
import { CallsById } from "../calls/calls_by_id.ts";
import type { World } from "../world/world.ts";

/**
 * What a supervisor drives (the host passes the real parts, unit tests
 * fakes) and the hooks it calls.
 */
export interface SupervisorOptions {
  world: Pick<World, "root" | "currentComponent">;
  journal:
    & Pick<Journal, "append" | "coreEvent" | "coalescedEvent">
    & Partial<Pick<Journal, "diskRefusal">>;
  table: ProcessTable;
  /** Where new guests go: the sandbox pool, or workers. */
  placer: GuestPlacer;
  cache: Pick<ComponentCache, "load">;
  mounts: SharedMounts;
  /** The world's limits: live processes, memory per process, time limits; default {@link defaultLimits}. */
  limits?: Limits;
  /** Receives each stdout line of a process (the router's `fromProcess`). */
  onStdout: LineHandler;
  /** Called with every process that ends, after it left the table, in this order. */
  onEnd?: readonly EndHandler[];
  /** Native methods by `<plugin>.<method>` (`cargo.build`): they run in the host, as processes. */
  natives?: ReadonlyMap<string, NativeMethod>;
  /**
   * When given, no call may start a plugin (a test has no other plugins): a
   * call fails with -32001 and this message for `<plugin>.<method>`.
   */
  noPlugins?: ((method: string) => string) | null;
}

/** Starts, stops and cleans up processes. */
export class Supervisor {
  /** The world's limits. */
  readonly limits: Limits;
  /** Plugins whose calls all end without an answer (`failing_calls`). */
  readonly failing: FailingPlugins;
  /** The process journal: the router and the core API write processes' lines there. */
  readonly log: ProcessLog;
  private lifecycle: Lifecycle;
  private checks: StartChecks;
  private guests: GuestSpawner;
  private calls = new CallsById();
  private natives: ReadonlyMap<string, NativeMethod>;
  private noPlugins: ((method: string) => string) | null;

  constructor(opts: SupervisorOptions) {
    const limits = this.limits = opts.limits ?? defaultLimits();
    const { journal } = opts;
    this.natives = opts.natives ?? new Map();
    this.noPlugins = opts.noPlugins ?? null;
    this.failing = new FailingPlugins(
      limits.failing_calls,
      limits.failing_hold_ms,
      (event, fields) => journal.coreEvent(event, fields),
    );
    const log = this.log = new ProcessLog(journal, limits.log_lines_per_second);
    this.checks = new StartChecks(limits, opts.table, this.failing, journal);
    this.lifecycle = new Lifecycle({
      table: opts.table,
      log,
      journal,
      failing: this.failing,
      onEnd: opts.onEnd ?? [],
    });
    this.guests = new GuestSpawner({
      world: opts.world,
      journal,
      placer: opts.placer,
      cache: opts.cache,
      mounts: opts.mounts,
      limits,
      log,
      lifecycle: this.lifecycle,
      checks: this.checks,
      onStdout: opts.onStdout,
    });
  }

  /**
   * The time limit of a call (PROTOCOL 4.9): `timeout_ms` of `core.call`, or
   * `call_timeout_ms`; throws -32602 past `call_timeout_max_ms`.
   */
  timeLimit(asked: number | undefined): number {
    return this.checks.timeLimit(asked);
  }

  /**
   * Starts a process for a call: a native method of the host, or a fresh
   * instance of the plugin's component. Throws a `HostError` (-32001) when the
   * plugin does not exist, -32601 when a native plugin has no such method.
   */
  spawn(req: SpawnRequest): Promise<Process> {
    const started = this.spawnNow(req);
    if (req.callerId !== undefined) this.calls.track(req.caller, req.callerId, started);
    return started;
  }

  /**
   * `caller`'s call `id` while its process is still being started (a promise
   * that settles once it runs or fails), else undefined.
   */
  startingCall(caller: Caller, id: Id): Promise<Process> | undefined {
    return this.calls.starting(caller, id);
  }

  /**
   * The process of `caller`'s call `id` (the id of its request) while it
   * runs; undefined when there is none (answered, ended, not started yet, or
   * a core method). Synchronous, so that a caller's messages take effect in
   * the order it wrote them.
   */
  runningCall(caller: Caller, id: Id): Process | undefined {
    return this.calls.running(caller, id);
  }

  private spawnNow(req: SpawnRequest): Promise<Process> {
    if (req.wasm === undefined) {
      try {
        const native = this.native(req);
        if (native) {
          return Promise.resolve(
            startNative(req, native, { lifecycle: this.lifecycle, log: this.log }),
          );
        }
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.guests.call(req);
  }

  /**
   * The native method a call of a plugin's current component runs, if any;
   * throws when no plugin may start, or a native plugin has no such method.
   */
  private native(req: SpawnRequest): NativeMethod | undefined {
    const method = `${req.plugin}.${req.method}`;
    if (this.noPlugins) throw new HostError("no-such-plugin", this.noPlugins(method));
    const native = this.natives.get(method);
    if (native) return native;
    const methods = [...this.natives.keys()].filter((m) => m.startsWith(`${req.plugin}.`));
    if (methods.length) {
      throw new HostError(
        "method-not-found",
        `${req.plugin} has no method ${req.method} (it has ${methods.join(", ")})`,
      );
    }
    return undefined;
  }

  /**
   * Starts a command ({@link CommandRequest}): stdin gets no request, its
   * text output goes to `onOutput` (and the journal), its JSON-RPC lines to
   * the router like any process's. Resolves once it runs; `p.ended` tells its exit.
   */
  spawnCommand(req: CommandRequest): Promise<Process> {
    return this.guests.command(req);
  }

  /** `core.stop`: closes stdin, waits the grace period, then kills. Resolves when it has ended. */
  stop(p: Process, graceMs = STOP_GRACE_MS): Promise<ExitInfo> {
    return this.lifecycle.stop(p, graceMs);
  }

  /**
   * `core.kill`: ends the process now for the core (its caller gets -32002
   * at once); a guest traps at its next check, its sandbox and the other
   * processes there go on.
   */
  kill(p: Process): void {
    this.lifecycle.kill(p);
  }

  /** Stops every attached child of a caller that ended (a closed connection). */
  stopChildren(caller: Caller): Promise<unknown> {
    return this.lifecycle.stopChildren(caller);
  }

  /** Stops every running process (host shutdown). */
  stopAll(graceMs = STOP_GRACE_MS): Promise<unknown> {
    return this.lifecycle.stopAll(graceMs);
  }
}
