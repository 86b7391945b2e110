/**
 * One sandbox: a long-lived Deno subprocess with narrow permissions that
 * runs many processes at once (`sandbox/main.ts`). The core talks to it with
 * the messages of `sandbox/hop/protocol.ts` and hands each message about a
 * process to that process's handler. The subprocess is killed by the kernel
 * when the host dies, by any means (`setpriv --pdeathsig`), and by the core
 * when it stops answering pings (a stall no check covers); either way every
 * process in it ends with a message that says the sandbox was lost. It runs
 * in a session of its own, so signals to the host's process group reach the
 * host alone (which stops it in order).
 *
 * @module
 */

import type { FromSandbox, ToSandbox } from "../../sandbox/hop/protocol.ts";
import { carrierLineLimit } from "../../rpc/line_splitter.ts";
import { StreamLink } from "../../sandbox/hop/link.ts";
import { type Hop, newHop } from "./sandbox_hop.ts";
import { checkFromSandbox } from "../../sandbox/hop/protocol_check.ts";
import { findExecutable } from "../executable.ts";
import { LinkedProcesses, type ProcessHandler } from "./linked_processes.ts";

export type { ProcessHandler } from "./linked_processes.ts";

/** How to start a sandbox subprocess. */
export interface SandboxOptions {
  /** The world folder: the only folder a sandbox may write. */
  world: string;
  /**
   * The folder of transpiled components the sandbox may read (read-only): a
   * host's is its world's view of the cache (`world_cache_view.ts`).
   */
  cache: string;
  /**
   * More host folders that sandboxes may read and write: the ones a command
   * preopens beside `/` (the test runner's package folder). None by default.
   */
  folders?: string[];
  /** A sandbox that has not answered a ping for this long is killed (ms). */
  stallMs: number;
  /** The world's longest line (`line_mib`), in bytes; the pipe carries lines of that size. */
  maxLine: number;
  /**
   * The bytes of finished processes' memories a sandbox keeps for the next
   * ones (`memory_pool_mib`; default that field's default).
   */
  memoryPool?: number;
  /** The world's disk bound (`disk_mib`), in bytes: guests' writes past it fail. None: unbounded. */
  diskBytes?: number;
  /** The bytes this sandbox's processes may grow by together: its share of `world_memory_mib` (default: no bound). */
  memoryShare?: number;
}

/** True inside a binary made by `deno compile`: its modules live in a virtual folder. */
const COMPILED = import.meta.url.includes("/deno-compile-");

/** `setpriv` makes the kernel kill a sandbox when the host dies, even while a guest spins. */
const SETPRIV = findExecutable(["/usr/bin/setpriv", "/bin/setpriv"]);

/**
 * `setsid` gives a sandbox a session and process group of its own by an
 * exec, not by Deno's `detached`, which forks the whole host to run its
 * pre-exec step: 28-31 ms a spawn with 400 MB held, against 2-3 (a host
 * start took ~115 ms longer with it: DECISIONS.md, "Sandboxes started by
 * exec"). Without it, `detached` does the same, slowly.
 */
const SETSID = findExecutable(["/usr/bin/setsid", "/bin/setsid"]);

/** How often the core pings each sandbox. */
const PING_MS = 500;

/**
 * The command line of a sandbox: `deno run` of `sandbox/main.ts` with
 * narrow permissions, or, in a compiled binary (whose permissions are fixed
 * at compile time), the binary itself with the hidden `__sandbox` command.
 */
function sandboxCommand(opts: SandboxOptions, hop: Hop): [string, string[]] {
  const read = [opts.world, opts.cache, ...opts.folders ?? [], ...hop.folder ? [hop.folder] : []];
  const write = [opts.world, ...opts.folders ?? [], ...hop.folder ? [hop.folder] : []];
  const args = COMPILED ? ["__sandbox"] : [
    "run",
    "--quiet",
    // No config: a sandbox imports only this checkout's files, node: modules
    // and jco's self-contained glue, and reading deno.json (its npm imports
    // and node_modules) cost every sandbox start ~15 ms.
    "--no-config",
    "--no-prompt",
    `--allow-read=${read.join(",")}`,
    `--allow-write=${write.join(",")}`,
    "--allow-net",
    "--allow-env=JCO_DEBUG",
    new URL("../../sandbox/main.ts", import.meta.url).pathname,
  ];
  args.push(`--max-line=${opts.maxLine}`, ...hop.args);
  if (opts.memoryPool !== undefined) args.push(`--memory-pool=${opts.memoryPool}`);
  if (opts.diskBytes !== undefined) {
    args.push(`--disk-bytes=${opts.diskBytes}`, `--world=${opts.world}`);
  }
  if (opts.memoryShare !== undefined) args.push(`--memory-share=${opts.memoryShare}`);
  const command = [
    ...SETSID ? [SETSID] : [],
    ...SETPRIV ? [SETPRIV, "--pdeathsig", "KILL", "--"] : [],
    Deno.execPath(),
    ...args,
  ];
  return [command[0], command.slice(1)];
}

/**
 * V8's flags for sandboxes (`DENO_V8_FLAGS`, which a compiled binary reads
 * too): `SAUSAGE_SANDBOX_V8_FLAGS` when set (`bench/tier_up.ts` measures
 * eager compilation with it), else the host's own.
 */
function v8Flags(): Record<string, string> {
  try {
    const flags = Deno.env.get("SAUSAGE_SANDBOX_V8_FLAGS")?.trim();
    // Empty is none: V8 refuses the flag '' and no sandbox would start.
    return flags ? { DENO_V8_FLAGS: flags } : {};
  } catch {
    return {}; // no permission to read the environment
  }
}

/** One sandbox subprocess and the processes it runs. */
export class Sandbox {
  /** Resolves when the sandbox has started and can run processes. */
  readonly ready: Promise<void>;
  /** Resolves with why the sandbox ended, once its subprocess has exited. */
  readonly ended: Promise<string>;
  private child: Deno.ChildProcess;
  private link: StreamLink<ToSandbox, FromSandbox>;
  private processes = new LinkedProcesses((why) => `the sandbox was lost: ${why}`);
  /** Why it ended or is being killed. */
  private lost: string | null = null;
  private lastPong = Date.now();
  private lastTick = Date.now();
  private pings: ReturnType<typeof setInterval>;

  /** Starts the subprocess. */
  constructor(private opts: SandboxOptions) {
    const hop = newHop();
    const [cmd, args] = sandboxCommand(opts, hop);
    try {
      this.child = new Deno.Command(cmd, {
        args,
        // Not the host's working folder, which may be gone (a host started in a folder that was
        // removed since): a sandbox uses no relative path.
        cwd: "/",
        env: v8Flags(),
        stdin: hop.stdin,
        stdout: hop.stdout,
        stderr: "inherit",
        // A session and process group of its own (`setsid`, else `detached`): a signal to the
        // host's group (a terminal's Ctrl-C, `timeout`, a service manager's stop) reaches the
        // host, which stops the sandbox's processes in order, and not the sandbox, which would
        // end them unjournaled. `--pdeathsig` still ends it with the host.
        detached: SETSID === null,
      }).spawn();
    } catch (e) {
      hop.done();
      throw e;
    }
    this.link = new StreamLink(hop.duplex(this.child), {
      check: checkFromSandbox,
      maxFrame: carrierLineLimit(opts.maxLine),
    });
    let started: () => void;
    this.ready = new Promise((r) => (started = r));
    this.ended = this.child.status.then((s) => {
      hop.done();
      const why = this.lost ??
        (s.signal ? `it was killed by ${s.signal}` : `it exited with status ${s.code}`);
      this.lose(why);
      return why;
    });
    this.link.listen((msg) => this.receive(msg, started));
    this.link.closed.then((why) => {
      // A sandbox that sent what fails the check is not trusted further.
      if (!why.startsWith("its peer closed")) this.kill(why);
    });
    this.pings = setInterval(() => this.ping(), PING_MS);
    Deno.unrefTimer(this.pings);
  }

  private receive(msg: FromSandbox, started: () => void): void {
    if (msg.op === "ready") started();
    else if (msg.op === "pong") this.lastPong = Date.now();
    else this.processes.deliver(msg);
  }

  /**
   * Every {@link PING_MS}: a sandbox is stalled when for `stallMs` it has
   * answered no ping and no bytes moved between it and the core (a message
   * of megabytes through the pipe on a loaded machine takes seconds, and the
   * pong waits behind it). A tick that comes late means the core itself was
   * behind, unable to read: it judges nothing.
   */
  private ping(): void {
    const now = Date.now();
    const late = now - this.lastTick > 2 * PING_MS;
    this.lastTick = now;
    const heard = Math.max(this.lastPong, this.link.lastMoved);
    if (!late && now - heard > this.opts.stallMs) {
      this.kill(`it stopped answering for ${Math.round(this.opts.stallMs / 1000)} s`);
    } else this.send({ op: "ping", n: now });
  }

  /** The OS process id of the subprocess. */
  get osPid(): number {
    return this.child.pid;
  }

  /** True once the sandbox has ended or is being killed. */
  get hasEnded(): boolean {
    return this.lost !== null;
  }

  /** How many processes it runs now (including killed ones that have not exited yet). */
  get load(): number {
    return this.processes.size;
  }

  /** Starts a process: its messages go to `handler`, ending with its `exit`. */
  start(msg: Extract<ToSandbox, { op: "run" }>, handler: ProcessHandler): void {
    if (this.processes.add(msg.pid, handler)) this.send(msg);
  }

  /** Sends a message; lost silently if the sandbox is gone. */
  send(msg: ToSandbox): void {
    if (!this.lost) this.link.send(msg);
  }

  /** SIGKILLs the subprocess; its processes end with `why`. */
  kill(why = "it was stopped"): void {
    if (this.lost) return;
    this.lose(why);
    try {
      this.child.kill("SIGKILL");
    } catch { /* already gone */ }
  }

  private lose(why: string): void {
    this.lost ??= why;
    clearInterval(this.pings);
    this.processes.lose(this.lost);
  }
}
