/**
 * The host: a running world. Assembles the journal, the process table, the
 * sandbox pool, the supervisor, the router and the core API; starts it (the
 * sandboxes, the SDK copy, the boot calls of `boot.ts`); and shuts down
 * cleanly (every process stopped, the journal flushed).
 *
 * @module
 */

import type { Request } from "../rpc/message.ts";
import type { Caller, Process } from "./processes/process.ts";
import { WorldCacheView } from "./cache/world_cache_view.ts";
import { ComponentCache } from "./cache/component_cache.ts";
import { coreMethods } from "./calls/core_api.ts";
import { Journal } from "./journal/journal.ts";
import { lockMethods, LockTable } from "./files/locks.ts";
import { cacheDir } from "./paths.ts";
import { ProcessTable } from "./processes/process_table.ts";
import { Router } from "./calls/router.ts";
import { SandboxPool } from "./sandboxes/sandbox_pool.ts";
import { type Limits, readLimitsChecked } from "./world/limits.ts";
import { STOP_GRACE_MS } from "./processes/process_lifecycle.ts";
import { Supervisor } from "./processes/supervisor.ts";
import { World } from "./world/world.ts";
import { MemMount } from "../vfs/mem_mount.ts";
import { ProcMount } from "../vfs/proc_mount.ts";
import { DiscoverStore } from "./activation/discover_store.ts";
import { PluginDocs } from "./activation/plugin_docs.ts";
import { FileHashes } from "./cache/file_hash.ts";
import { ProcView } from "./files/proc_view.ts";
import { ServedRegistry } from "./files/served_files.ts";
import { Pipes } from "./files/pipes.ts";
import { fingerprint, Watches } from "./files/watches.ts";
import { HostFs } from "../vfs/host_fs.ts";
import { DiskMount } from "../vfs/disk_mount.ts";
import { GraphKeeper } from "./activation/graph_keeper.ts";
import { Activator } from "./activation/activation.ts";
import { ClientSource } from "./activation/client_source.ts";
import { cargoBuildMethod } from "./cargo/cargo_build_method.ts";
import { DEFAULT_SDK_DIR } from "./cargo/world_sdk.ts";
import { makeBootCalls } from "./world/boot.ts";
import { callAsCore, discoverAsCore } from "./calls/call_as_core.ts";
import type { HostOptions } from "./host_options.ts";
import { SdkCopy } from "./cargo/sdk_copy.ts";
import { defaultCommand, HostLock } from "./control/host_lock.ts";
import { readNatsConfig, RemoteWorld } from "./remote/remote_world.ts";
import { DiskBudget } from "../vfs/disk_budget.ts";
import { ControlServer } from "./control/control_server.ts";
import { SecretService } from "./secrets/secret_service.ts";

/** A running world. */
export class Host {
  readonly world: World;
  readonly journal: Journal;
  readonly table = new ProcessTable();
  readonly locks = new LockTable();
  /** `/run`: shared by all processes, in memory, empty at each start. */
  readonly runMount = new MemMount();
  /** `/proc`. */
  readonly proc: ProcMount;
  /** The interface documents of the plugins. */
  readonly docs: PluginDocs;
  /** The core's state as `/proc` and `/self` read it. */
  readonly view: ProcView;
  /** The documents and the graph of the plugins. */
  readonly graph: GraphKeeper;
  /** `core.activate` and `core.revert`. */
  readonly activator: Activator;
  /** The filesystem as processes see it, for the host side. */
  readonly fs: HostFs;
  /** The world folder as a mount: `sausage ls`/`cat`, and the symlinks guests make. */
  private worldMount: DiskMount;
  readonly pool: SandboxPool;
  /** Workers on other machines, when `config/nats.json` asks for them (`remote/`). */
  readonly remote: RemoteWorld | null = null;
  /** The subscriptions to file changes (`core.watch`). */
  readonly watches: Watches;
  /** The world's limits (`config/limits.json`). */
  readonly limits: Limits;
  readonly supervisor: Supervisor;
  readonly router: Router;
  /** Resolves with the exit code when the host should end (`core.exit`, a signal). */
  readonly done: Promise<number>;
  private finish!: (code: number) => void;
  /** The shutdown under way or done, once `shutdown` was called. */
  private closing?: Promise<void>;
  private readonly sdkCopy: SdkCopy;
  /** The world's lock (`host_lock.ts`): held from the first step to the last. */
  private readonly lock: HostLock;
  /** Serves the host's clients (the control socket, links in memory); closed at shutdown before the lock goes. */
  readonly control: ControlServer = new ControlServer(this);

  /**
   * Opens a world (throws a one-line error when it is missing) after taking
   * its lock (throws `WorldLockedError`, saying who holds it, when another
   * host runs it).
   */
  constructor(path: string, private opts: HostOptions = {}) {
    this.world = new World(path);
    this.lock = opts.lock ?? HostLock.take(this.world, {
      command: opts.command ?? defaultCommand(),
      transient: opts.transient ?? false,
    });
    try {
      this.worldMount = new DiskMount(this.world.root);
      const { limits, problems } = readLimitsChecked(this.world.root);
      this.limits = limits;
      this.journal = new Journal(
        opts.journalPath ?? this.world.journalPath(),
        opts.report,
        {
          maxBytes: this.limits.journal_mib * 2 ** 20,
          maxAgeMs: this.limits.journal_days * 86_400_000,
          maxEntryBytes: this.limits.journal_entry_kib * 1024,
          reserveBytes: this.limits.journal_reserve_mib * 2 ** 20,
        },
      );
      // A bad limits file never stops the host: each problem is said once, and journaled.
      for (const problem of problems) {
        (opts.report ?? ((l: string) => console.error(l)))(`sausage: ${problem}`);
        this.journal.coreEvent("limits-problem", { problem });
      }
      const sdkDir = opts.sdkDir === undefined ? DEFAULT_SDK_DIR : opts.sdkDir;
      this.sdkCopy = new SdkCopy(
        this.world.root,
        sdkDir,
        this.journal,
        // A host without an SDK to copy (a test runner's) leaves the world untouched.
        sdkDir === null ? undefined : `${this.world.coreState()}/sdk-copy.json`,
      );
      const cache = opts.cacheDir ?? cacheDir();
      const hashes = new FileHashes();
      // Sandboxes read only the cache entries this world loads (`world_cache_view.ts`).
      const components = new WorldCacheView(
        cache,
        this.world.root,
        new ComponentCache(cache, hashes, !opts.noPreemption),
      );
      const sandboxes = opts.sandboxes ?? this.limits.sandboxes;
      this.pool = opts.pool ?? new SandboxPool(
        {
          world: this.world.root,
          cache: components.folder,
          stallMs: this.limits.stall_ms,
          maxLine: this.limits.line_mib * 2 ** 20,
          memoryPool: this.limits.memory_pool_mib * 2 ** 20,
          diskBytes: this.limits.disk_mib * 2 ** 20,
          // Each sandbox bounds its own processes' grows: no message per grow (PROTOCOL 4.9).
          memoryShare: Math.floor(this.limits.world_memory_mib * 2 ** 20 / sandboxes),
        },
        sandboxes,
        (event, fields) => this.journal.coreEvent(event, fields),
      );
      const nats = readNatsConfig(this.world.root);
      if (nats) {
        const budget = new DiskBudget(this.world.root, this.limits.disk_mib * 2 ** 20);
        budget.prime().catch(() => {});
        this.remote = new RemoteWorld(
          nats,
          this.world.root,
          new DiskMount(this.world.root, { budget }),
          this.pool,
          (event, fields) => this.journal.coreEvent(event, fields),
          opts.report ?? ((l) => console.error(l)),
        );
      }
      // Discovery runs once per plugin version: its outcome is kept in state/core/discovered/.
      this.docs = new PluginDocs(
        this.world,
        (plugin) => discoverAsCore(this.supervisor, this.journal, plugin),
        hashes,
        {
          store: new DiscoverStore(() => `${this.world.coreState()}/discovered`),
          journal: this.journal,
          report: opts.report ?? ((l: string) => console.error(l)),
        },
      );
      this.graph = new GraphKeeper(this.world, this.docs, this.journal);
      const clients = new ClientSource(
        this.docs,
        (wasm, params) => callAsCore(this.supervisor, "codegen", "client", params, wasm),
      );
      const served = new ServedRegistry(
        this.limits.served_requests,
        this.limits.served_request_kib * 1024,
      );
      const view = this.view = new ProcView({
        served: (pid) => served.files(pid),
        world: this.world,
        table: this.table,
        locks: this.locks,
        docs: this.docs,
        graph: () => this.graph.files(),
        client: (plugin) => clients.client(plugin),
        journal: () => this.journal.health.view(),
        failing: () => this.supervisor.failing.snapshot(),
      });
      this.proc = new ProcMount(view);
      this.fs = new HostFs({
        "/": this.worldMount,
        "/proc": this.proc,
        "/run": this.runMount,
      });
      // Served files, pipes and watches (PROTOCOL 5.1, 5.2, 6): released when a process ends.
      const pipes = new Pipes(this.limits.pipes);
      this.watches = new Watches({
        root: this.world.root,
        max: this.limits.watches,
        fingerprint: (path) => fingerprint(this.fs, path),
      });
      const parts = [served, pipes, this.watches];
      this.supervisor = new Supervisor({
        world: this.world,
        journal: this.journal,
        table: this.table,
        placer: this.remote?.placer ?? this.pool,
        cache: components,
        mounts: {
          proc: this.proc,
          run: this.runMount,
          source: view,
          world: this.worldMount,
        },
        limits: this.limits,
        onStdout: (p, line) => this.router.fromProcess(p, line),
        onEnd: [
          (p) => this.locks.releaseAll(p.pid),
          ...parts.map((part) => (p: Process) => part.end(p)),
        ],
        natives: new Map([[
          "cargo.build",
          cargoBuildMethod({
            world: this.world,
            sdk: () => this.sdkCopy.folder(),
            breaks: (plugin, file) => this.activator.breaks(plugin, file),
            openTestHost: opts.openTestHost,
          }),
        ]]),
        noPlugins: opts.noPlugins,
      });
      this.router = new Router(this.supervisor);
      this.done = new Promise((r) => (this.finish = r));
      for (
        const [name, m] of coreMethods({
          supervisor: this.supervisor,
          table: this.table,
          journal: this.journal,
          exit: (code) => this.finish(code),
        })
      ) this.router.core.set(name, m);
      for (const [name, m] of lockMethods(this.locks)) this.router.core.set(name, m);
      // `core.secret` (PROTOCOL 9.1): config/secrets.json and the owner's file, read at each call.
      const secrets = new SecretService({
        root: this.world.root,
        event: (p, event) => this.supervisor.log.event(p, event),
      });
      for (const problem of secrets.problems()) {
        (opts.report ?? ((l: string) => console.error(l)))(`sausage: ${problem}`);
        this.journal.coreEvent("secrets-problem", { problem });
      }
      for (const [name, m] of secrets.methods()) this.router.core.set(name, m);
      this.activator = new Activator(
        this.world,
        this.graph,
        this.journal,
        async (plugin, wasm) =>
          this.docs.discoverFile(
            plugin,
            await hashes.hash(wasm),
            () => discoverAsCore(this.supervisor, this.journal, plugin, wasm),
          ),
      );
      for (const [name, m] of this.activator.methods()) this.router.core.set(name, m);
      for (const part of parts) {
        for (const [name, m] of part.methods()) this.router.core.set(name, m);
      }
      this.router.coreReplies = (p, msg) => served.settle(p, msg);
    } catch (e) {
      this.remote?.close();
      this.lock.release();
      throw e;
    }
  }

  /** Whether this host ends by itself once its command is done (`HostOptions.transient`). */
  get transient(): boolean {
    return this.opts.transient ?? false;
  }

  /**
   * Starts the sandboxes, brings the SDK copy up to date meanwhile (a few
   * stats when nothing changed: `syncSdk`'s stamp) and makes the boot calls
   * (detached) once one sandbox is ready and `beforeBoot` is done (`run`
   * and `dev` build changed plugins there, so the boot calls get them).
   */
  async start(beforeBoot?: () => Promise<void>): Promise<void> {
    const sdk = this.sdkCopy.folder().catch((e) => {
      this.sdkCopy.retry(); // cargo.build tries again
      this.opts.report?.(
        `sausage: the SDK was not copied to plugins/cargo/sdk: ${
          e instanceof Error ? e.message : e
        }`,
      );
    });
    await Promise.all([this.pool.warm(), sdk]);
    if (this.opts.watch !== false) this.graph.start();
    await beforeBoot?.();
    makeBootCalls(this.world, this.control, this.journal, this.opts.report);
  }

  /** Handles a request from an external caller (the control socket, a one-off call). */
  request(caller: Caller, req: Request): void {
    this.router.request(caller, req);
  }

  /** Ends the host: the exit code for `done`. */
  exit(code: number): void {
    this.finish(code);
  }

  /**
   * Stops every process (closing stdin, then killing after the grace
   * period) and closes everything; the world's lock goes last, whatever
   * failed before it. A second call resolves with the first: when it
   * resolves, the lock is free.
   */
  shutdown(graceMs = STOP_GRACE_MS): Promise<void> {
    return this.closing ??= this.close(graceMs);
  }

  private async close(graceMs: number): Promise<void> {
    try {
      this.journal.coreEvent("shutdown", { processes: this.table.size });
      this.graph.close();
      this.watches.close();
      await this.supervisor.stopAll(graceMs);
      await this.control.close();
      this.remote?.close();
      if (!this.opts.pool) this.pool.close();
      this.journal.close();
    } finally {
      this.lock.release();
    }
  }
}
