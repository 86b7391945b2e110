/**
 * Starting guests: a plugin's component for a call, or a command, as a
 * fresh instance in a sandbox. The core serves its `/proc`, `/self` and
 * `/run` (`fs_server.ts`), hands its stdout lines to the router and its
 * stderr to the journal, and ends the process when the guest exits.
 *
 * @module
 */

import type { ComponentCache, Engine } from "../cache/component_cache.ts";
import { agentTokenEnv } from "./agent_token.ts";
import { FsServer } from "../files/fs_server.ts";
import { type GuestPlacer, GuestRunner } from "../sandboxes/guest_runner.ts";
import type { Journal } from "../journal/journal.ts";
import type { Limits } from "../world/limits.ts";
import { Process, type ProcessOptions } from "./process.ts";
import type { Lifecycle } from "./process_lifecycle.ts";
import type { ProcessLog } from "./process_log.ts";
import { callOf, type CommandRequest, type SpawnRequest } from "./spawn_request.ts";
import type { StartChecks } from "./start_checks.ts";
import { uuidv7 } from "./uuid.ts";
import type { World } from "../world/world.ts";
import type { ExtraPreopen, ProcessMessage, RunMessage } from "../../sandbox/hop/protocol.ts";
import { INITIAL_MEMORY_TRAP, tookEvery, WORLD_MEMORY_TRAP } from "../../sandbox/hop/terms.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";
import type { Mount } from "../../vfs/mount.ts";
import { ProcessDir } from "../../vfs/process_dir.ts";
import type { ProcSource } from "../../vfs/proc_source.ts";

/**
 * The mounts every process shares: `/proc` and `/run`, with the source of
 * `/self`; and the world on disk, where the core makes the symlinks of guests.
 */
export interface SharedMounts {
  proc: Mount;
  run: Mount;
  source: ProcSource;
  world: Mount;
}

/** Receives each stdout line of a process (the router). */
export type LineHandler = (p: Process, line: string) => void;

/** What starting guests uses: the world, its parts and the rest of the supervisor. */
export interface GuestSpawnDeps {
  world: Pick<World, "root" | "currentComponent">;
  journal: Pick<Journal, "coreEvent">;
  placer: GuestPlacer;
  cache: Pick<ComponentCache, "load">;
  mounts: SharedMounts;
  limits: Limits;
  log: ProcessLog;
  lifecycle: Lifecycle;
  checks: StartChecks;
  /** Receives each stdout line of a guest (the router). */
  onStdout: LineHandler;
}

/** The part of a run message that differs between a call and a command. */
type GuestRun = Omit<RunMessage, "op" | "pid" | "world" | "memoryLimit" | "maxLine">;

/** Starts guests in sandboxes and handles what they send. */
export class GuestSpawner {
  /** How much handled output the core tells a sandbox of at a time. */
  private tookEvery: number;

  constructor(private deps: GuestSpawnDeps) {
    this.tookEvery = tookEvery(deps.limits.output_window_kib * 1024);
  }

  /**
   * Starts a fresh instance of the plugin's component (or of `req.wasm`)
   * for a call, within the world's limits; a call someone waits for gets
   * its time limit.
   */
  async call(req: SpawnRequest): Promise<Process> {
    const { checks, lifecycle } = this.deps;
    checks.disk(`${req.plugin}.${req.method}`, req.caller);
    checks.processes(`${req.plugin}.${req.method}`, req.caller);
    if (req.wasm === undefined) checks.failingPlugin(req.plugin, req.method, req.caller);
    const timeLimit = checks.timeLimit(req.timeoutMs);
    const component = req.wasm === undefined
      ? this.deps.world.currentComponent(req.plugin)
      : { path: req.wasm };
    const compiled = await this.deps.cache.load(component.path, component.info);
    const sandbox = await this.deps.placer.place(req.plugin);
    checks.disk(`${req.plugin}.${req.method}`, req.caller);
    checks.processes(`${req.plugin}.${req.method}`, req.caller);
    const pid = `${req.plugin}-${uuidv7()}`;
    const runner = new GuestRunner(sandbox, pid, this.tookEvery);
    const p = this.create(runner, { pid, ...callOf(req) });
    this.run(p, runner, {
      dir: compiled.dir,
      env: [
        ["SAUSAGE_PID", pid],
        ["SAUSAGE_PLUGIN", req.plugin],
        ["SAUSAGE_PARENT", p.parent],
        ...agentTokenEnv(this.deps.world.root, req.plugin),
      ],
      request: JSON.stringify({ jsonrpc: "2.0", id: pid, method: req.method, params: req.params }),
    }, compiled.engine);
    if (req.wasm === undefined) lifecycle.countFailures(p);
    // Only a call someone waits for has a time limit: a server answers, then lives on.
    if (req.callerId !== undefined) lifecycle.limitTime(p, timeLimit);
    return p;
  }

  /**
   * Starts a command ({@link CommandRequest}): stdin gets no request, its
   * text output goes to `onOutput` (and the journal), its JSON-RPC lines to
   * the router like any process's. Resolves once it runs; `p.ended` tells its exit.
   */
  async command(req: CommandRequest): Promise<Process> {
    this.deps.checks.disk(`${req.name}.${req.label}`, req.caller);
    this.deps.checks.processes(`${req.name}.${req.label}`, req.caller);
    const sandbox = await this.deps.placer.place();
    const pid = `${req.name}-${uuidv7()}`;
    const runner = new GuestRunner(sandbox, pid, this.tookEvery);
    const p = this.create(runner, {
      pid,
      plugin: req.name,
      method: req.label,
      params: { args: req.args },
      caller: req.caller,
      callerId: undefined,
      detached: false,
      onOutput: req.onOutput,
    }, req.preopens);
    const own = [["SAUSAGE_PID", pid], ["SAUSAGE_PLUGIN", req.name], [
      "SAUSAGE_PARENT",
      p.parent,
    ]] as [string, string][];
    this.run(p, runner, {
      dir: req.component.dir,
      env: req.exactEnv ? req.env : [...req.env.filter(([k]) => !k.startsWith("SAUSAGE_")), ...own],
      args: req.args,
      cwd: req.cwd,
      preopens: req.preopens,
      onlyPreopens: req.onlyPreopens,
    }, req.component.engine);
    return p;
  }

  /**
   * A new process of the guest `runner` runs, with the mounts the core
   * serves it (and `preopens`, where it may make symlinks), made a child of its caller.
   */
  private create(
    runner: GuestRunner,
    opts: Omit<ProcessOptions, "runner" | "fs">,
    preopens: ExtraPreopen[] = [],
  ): Process {
    const { mounts, log } = this.deps;
    // A command's folders are resolved now; the server is made at the first file request.
    const extra = preopens.map((o) => [`preopen:${o.guestPath}`, new DiskMount(o.hostPath)]);
    const fs = () =>
      new FsServer({
        proc: mounts.proc,
        run: mounts.run,
        self: new ProcessDir(mounts.source, opts.pid, true),
        world: mounts.world,
        ...Object.fromEntries(extra),
      }, (fault) => log.event(p, { event: "host-fault", error: fault.message }));
    const p = new Process({ ...opts, runner, fs });
    this.deps.lifecycle.attach(p);
    return p;
  }

  /** Enters a process in the table and journal and starts it in its sandbox. */
  private run(p: Process, runner: GuestRunner, run: GuestRun, engine: Engine): void {
    const { limits } = this.deps;
    this.deps.lifecycle.enter(p, engine);
    runner.sandbox.start(
      {
        ...run,
        op: "run",
        pid: p.pid,
        world: this.deps.world.root,
        memoryLimit: limits.memory_mib * 2 ** 20,
        maxLine: limits.line_mib * 2 ** 20,
        outputWindow: limits.output_window_kib * 1024,
      },
      (msg) => this.onGuest(p, runner, msg),
    );
  }

  private onGuest(p: Process, runner: GuestRunner, msg: ProcessMessage): void {
    if (p.hasEnded) return;
    switch (msg.op) {
      case "out":
        this.deps.onStdout(p, msg.line);
        runner.took(msg.line);
        break;
      case "err":
        this.deps.log.write(p, "stderr", msg.line);
        runner.took(msg.line);
        break;
      case "exit": {
        // A grow or an initial memory refused for a limit: the call gets -32004 (PROTOCOL 4.9).
        const limit = msg.error?.startsWith(WORLD_MEMORY_TRAP)
          ? "world_memory_mib"
          : msg.error?.startsWith(INITIAL_MEMORY_TRAP)
          ? "memory_mib"
          : undefined;
        if (limit) {
          const value = this.deps.limits[limit];
          this.deps.journal.coreEvent("limit", { limit, value, pid: p.pid });
          this.deps.lifecycle.ended(p, { status: msg.status, trap: msg.error, limit, value });
        } else {
          this.deps.lifecycle.ended(
            p,
            msg.error ? { status: msg.status, trap: msg.error } : { status: msg.status },
          );
        }
        break;
      }
      case "fs":
        p.fs!.handle(msg).then((reply) => {
          if (!p.hasEnded) runner.sandbox.send(reply);
        });
        break;
    }
  }
}
