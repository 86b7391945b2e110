/**
 * The host: a running world. Assembles the journal, the process table, the
 * sandbox pool, the supervisor, the router and the core API; makes the boot
 * calls; and shuts down cleanly (every process stopped, the journal flushed).
 *
 * @module
 */

import type { Message, Request } from "../rpc/message.ts";
import type { Caller } from "./caller.ts";
import { ComponentCache } from "./component_cache.ts";
import { coreMethods } from "./core_api.ts";
import { Journal } from "./journal.ts";
import { lockMethods, LockTable } from "./locks.ts";
import { cacheDir } from "./paths.ts";
import type { Process } from "./process.ts";
import { ProcessTable } from "./process_table.ts";
import { Router } from "./router.ts";
import { SandboxPool } from "./sandbox_pool.ts";
import { type Limits, readLimits } from "./limits.ts";
import { STOP_GRACE_MS, Supervisor } from "./supervisor.ts";
import { World } from "./world.ts";
import { MemMount } from "../vfs/mem_mount.ts";
import { ProcMount } from "../vfs/proc_mount.ts";
import { PluginDocs } from "./plugin_docs.ts";
import { checkedDocument, InvalidDocument } from "./discover_document.ts";
import { FileHashes } from "./file_hash.ts";
import { ProcView } from "./proc_view.ts";
import { HostFs } from "../vfs/host_fs.ts";
import { DiskMount } from "../vfs/disk_mount.ts";
import { GraphKeeper } from "./graph_keeper.ts";
import { Activator } from "./activation.ts";
import type { OpenRpcDocument } from "../rpc/openrpc.ts";
import { ClientSource } from "./client_source.ts";
import { cargoBuildMethod } from "./cargo_build_method.ts";
import { DEFAULT_SDK_DIR, syncSdk, worldSdkDir } from "./cargo/world_sdk.ts";

/** How long a call that the core makes itself (`rpc.discover`, the client generator) may take. */
const CORE_CALL_TIMEOUT_MS = 10_000;

/** Options of a host. */
export interface HostOptions {
  /** How many sandboxes run processes (default `sandboxes` of `config/limits.json`). */
  sandboxes?: number;
  /** Where transpiled components are cached. */
  cacheDir?: string;
  /**
   * Run components without the preemption checks (default false). Only the
   * benchmark sets it, to measure what the checks cost: such guests cannot be
   * killed at a check, and a loop stalls its whole sandbox until the backstop.
   */
  noPreemption?: boolean;
  /** Receives one line per notable event (boot results), for the terminal. */
  report?: (line: string) => void;
  /** Fetch every plugin's document at start and watch `plugins/` (default true). */
  watch?: boolean;
  /**
   * Sandboxes shared with other hosts (the test runner gives each test a
   * host of its own on one pool); the host does not close them. By
   * default the host starts a pool of its own.
   */
  pool?: SandboxPool;
  /** The journal's SQLite file; `:memory:` keeps it in memory. Default `state/core/journal.sqlite`. */
  journalPath?: string;
  /**
   * When set, no call starts a plugin: each fails with -32001 and this
   * message for `<plugin>.<method>` (a test has no other plugins).
   */
  noPlugins?: (method: string) => string;
  /**
   * The SDK that `cargo.build` builds against: copied to the world's
   * `plugins/cargo/sdk/` at start when that copy is missing or differs.
   * Default this repository's `sdk/`; null: no copy (a test's empty world).
   */
  sdkDir?: string | null;
}

/** A caller that the host itself uses (boot, one-off calls). */
export class LocalCaller implements Caller {
  readonly children = new Set<Process>();
  hasEnded = false;
  private waiting = new Map<string | number, (msg: Message) => void>();
  private next = 0;

  /** @param name `SAUSAGE_PARENT` of the processes it starts */
  constructor(readonly name: string, private onNotify: (msg: Message) => void = () => {}) {}

  /** Hands a message to whoever waits for it. */
  deliver(msg: Message): void {
    if ("method" in msg) return this.onNotify(msg);
    const resolve = msg.id === null ? undefined : this.waiting.get(msg.id);
    if (resolve && msg.id !== null) {
      this.waiting.delete(msg.id);
      resolve(msg);
    }
  }

  /** Makes a request through `router` and resolves with the response. */
  call(router: Router, method: string, params: Record<string, unknown>): Promise<Message> {
    const id = `${this.name}-${++this.next}`;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      router.request(this, { jsonrpc: "2.0", id, method, params });
    });
  }
}

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
  /** The world's limits (`config/limits.json`). */
  readonly limits: Limits;
  readonly supervisor: Supervisor;
  readonly router: Router;
  /** Resolves with the exit code when the host should end (`core.exit`, a signal). */
  readonly done: Promise<number>;
  private finish!: (code: number) => void;
  private closed = false;
  private sdkCopy: Promise<string> | null = null;

  /** Opens a world (throws a one-line error when it is missing). */
  constructor(path: string, private opts: HostOptions = {}) {
    this.world = new World(path);
    this.worldMount = new DiskMount(this.world.root);
    this.limits = readLimits(this.world.root);
    this.journal = new Journal(
      opts.journalPath ?? this.world.journalPath(),
      opts.report,
      {
        maxBytes: this.limits.journal_mib * 2 ** 20,
        maxAgeMs: this.limits.journal_days * 86_400_000,
      },
    );
    const cache = opts.cacheDir ?? cacheDir();
    const hashes = new FileHashes();
    const components = new ComponentCache(cache, hashes, !opts.noPreemption);
    this.pool = opts.pool ?? new SandboxPool(
      {
        world: this.world.root,
        cache,
        stallMs: this.limits.stall_ms,
        maxLine: this.limits.line_mib * 2 ** 20,
      },
      opts.sandboxes ?? this.limits.sandboxes,
    );
    this.docs = new PluginDocs(this.world, (plugin) => this.discover(plugin), hashes);
    this.graph = new GraphKeeper(this.world, this.docs, this.journal);
    const clients = new ClientSource(
      this.docs,
      (wasm, params) => this.callAsCore("codegen", "client", params, wasm),
    );
    const view = this.view = new ProcView({
      world: this.world,
      table: this.table,
      locks: this.locks,
      docs: this.docs,
      graph: () => this.graph.files(),
      client: (plugin) => clients.client(plugin),
    });
    this.proc = new ProcMount(view);
    this.fs = new HostFs({
      "/": this.worldMount,
      "/proc": this.proc,
      "/run": this.runMount,
    });
    this.supervisor = new Supervisor(this.world, this.journal, this.table, this.pool, components, {
      proc: this.proc,
      run: this.runMount,
      source: view,
      world: this.worldMount,
    }, this.limits);
    if (opts.noPlugins) this.supervisor.noPlugins = opts.noPlugins;
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
    this.activator = new Activator(
      this.world,
      this.graph,
      this.journal,
      (plugin, wasm) => this.discover(plugin, wasm),
    );
    for (const [name, m] of this.activator.methods()) this.router.core.set(name, m);
    this.supervisor.onEnd.push((p) => this.locks.releaseAll(p.pid));
    this.supervisor.natives.set(
      "cargo.build",
      cargoBuildMethod({
        world: this.world,
        sdk: () => this.sdk(),
        breaks: (plugin, file) => this.activator.breaks(plugin, file),
      }),
    );
  }

  /**
   * Brings the world's SDK copy up to date (once per host) and resolves with
   * its folder; with `sdkDir: null`, the world's folder as it is.
   */
  sdk(): Promise<string> {
    const to = worldSdkDir(this.world.root);
    const from = this.opts.sdkDir === undefined ? DEFAULT_SDK_DIR : this.opts.sdkDir;
    if (from === null) return Promise.resolve(to);
    this.sdkCopy ??= syncSdk(from, to).then((did) => {
      if (did === "copied") {
        this.journal.coreEvent("sdk-copied", { from, to: "/plugins/cargo/sdk" });
      }
      return to;
    });
    return this.sdkCopy;
  }

  /** Starts the sandboxes, brings the SDK copy up to date and makes the boot calls (detached). */
  async start(): Promise<void> {
    const sdk = this.sdk().catch((e) => {
      this.sdkCopy = null; // cargo.build tries again
      this.opts.report?.(
        `sausage: the SDK was not copied to plugins/cargo/sdk: ${
          e instanceof Error ? e.message : e
        }`,
      );
    });
    await Promise.all([this.pool.warm(), sdk]);
    if (this.opts.watch !== false) this.graph.start();
    const boot = new LocalCaller("core");
    for (const call of this.world.bootCalls()) {
      this.journal.coreEvent("boot", { ...call });
      boot.call(this.router, "core.call", {
        method: call.method,
        params: call.params,
        detach: true,
      }).then((res) => {
        const outcome = "error" in res && res.error
          ? { error: res.error }
          : { result: (res as { result: unknown }).result };
        this.journal.coreEvent("boot-result", { method: call.method, ...outcome });
        this.opts.report?.(
          "error" in outcome
            ? `boot: ${call.method} failed: ${outcome.error!.message}`
            : `boot: ${call.method} -> ${JSON.stringify(outcome.result)}`,
        );
      });
    }
  }

  /**
   * Calls `rpc.discover` of a plugin (or of a component file run as that
   * plugin, for an activation) as the core, and checks the answer: an
   * invalid document is journaled (`invalid-document`) and rejected.
   */
  private async discover(plugin: string, wasm?: string): Promise<OpenRpcDocument> {
    const answer = await this.callAsCore(plugin, "rpc.discover", {}, wasm);
    try {
      return checkedDocument(plugin, answer);
    } catch (e) {
      if (e instanceof InvalidDocument) {
        this.journal.coreEvent("invalid-document", {
          plugin,
          candidate: wasm !== undefined,
          problems: e.problems,
        });
      }
      throw e;
    }
  }

  /**
   * Makes a call as the core, to a plugin or to a component file run as that
   * plugin; rejects with the error message, or after `CORE_CALL_TIMEOUT_MS`
   * (a plugin that never answers must not hang an activation or a read of /proc).
   */
  private callAsCore(
    plugin: string,
    method: string,
    params: Record<string, unknown>,
    wasm?: string,
  ): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const caller = new LocalCaller("core");
      const relay = {
        name: "core",
        children: caller.children,
        hasEnded: false,
        deliver: (msg: { error?: { message: string }; result?: unknown; method?: string }) => {
          if (msg.method) return;
          if (msg.error) reject(new Error(`${plugin}.${method} failed: ${msg.error.message}`));
          else resolve(msg.result);
        },
      };
      this.supervisor
        .spawn({ plugin, method, params, caller: relay, callerId: method, detached: false, wasm })
        .then((p) => {
          const timer = setTimeout(() => {
            reject(
              new Error(
                `${plugin}.${method} did not answer within ${CORE_CALL_TIMEOUT_MS / 1000} s`,
              ),
            );
            this.supervisor.kill(p);
          }, CORE_CALL_TIMEOUT_MS);
          p.ended.then(() => clearTimeout(timer));
        }, reject);
    });
  }

  /** Handles a request from an external caller (the control socket, a one-off call). */
  request(caller: Caller, req: Request): void {
    this.router.request(caller, req);
  }

  /** Ends the host: the exit code for `done`. */
  exit(code: number): void {
    this.finish(code);
  }

  /** Stops every process (closing stdin, then killing after the grace period) and closes everything. */
  async shutdown(graceMs = STOP_GRACE_MS): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.journal.coreEvent("shutdown", { processes: this.table.size });
    this.graph.close();
    await this.supervisor.stopAll(graceMs);
    if (!this.opts.pool) this.pool.close();
    this.journal.close();
  }
}
