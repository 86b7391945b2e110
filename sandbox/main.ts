/**
 * The sandbox: a long-lived subprocess that runs many processes at once,
 * each a fresh instance, sharing its thread through time slices
 * (`guest/guest_control.ts`). It talks to the core with the messages of
 * `hop/protocol.ts`, in the frames of `hop/frames.ts` over a {@link MessageLink}
 * (stdin and stdout), and ends when the core goes away (the link closes).
 * `README.md` beside it walks through one process.
 *
 * @module
 */

import type { FromSandbox, RunMessage, ToSandbox } from "./hop/protocol.ts";
import { runProcess } from "./run_process.ts";
import { setWorldDiskBound } from "./mounts/preopens.ts";
import { ByteQueue } from "./wasi/pipes.ts";
import { FsChannel } from "./mounts/remote_mount.ts";
import { GuestControl } from "./guest/guest_control.ts";
import { MemoryShare } from "./guest/memory_share.ts";
import { MemoryPool } from "./guest/memory_pool.ts";
import { DEFAULT_MEMORY_POOL_MIB } from "./hop/terms.ts";
import { ProcessMemories } from "./guest/process_memories.ts";
import { carrierLineLimit, DEFAULT_MAX_LINE } from "../rpc/line_splitter.ts";
import { type ByteDuplex, type MessageLink, rawDuplex, StreamLink } from "./hop/link.ts";
import { checkToSandbox } from "./hop/protocol_check.ts";
import { OutputWindow } from "./guest/output_window.ts";

const encoder = new TextEncoder();

/**
 * The bytes to and from the core (`core/sandboxes/sandbox_hop.ts`): with
 * `--link=split:<path>`, read from that Unix socket and written to stdout;
 * with `--link=unix:<path>`, the socket both ways; else stdin and stdout.
 * Writes to stdout block, in the order of sends: a flood waits for the core.
 */
async function hopToCore(): Promise<ByteDuplex> {
  const link = Deno.args.find((a) => a.startsWith("--link="))?.slice("--link=".length);
  if (!link) return rawDuplex(Deno.stdin, Deno.stdout);
  const colon = link.indexOf(":");
  const conn = await Deno.connect({ transport: "unix", path: link.slice(colon + 1) });
  return link.startsWith("split:") ? rawDuplex(conn, Deno.stdout) : rawDuplex(conn);
}

/** The link to the core. */
const link: MessageLink<FromSandbox, ToSandbox> = new StreamLink(
  await hopToCore(),
  {
    check: checkToSandbox,
    maxFrame: carrierLineLimit(bytesArg("max-line", DEFAULT_MAX_LINE) || DEFAULT_MAX_LINE),
  },
);

function send(msg: FromSandbox): void {
  link.send(msg);
}

/** A process running in this sandbox. */
interface Running {
  stdin: ByteQueue;
  fs: FsChannel;
  control: GuestControl;
  window?: OutputWindow;
}

const running = new Map<string, Running>();

function start(msg: RunMessage): void {
  const { pid } = msg;
  const p: Running = {
    stdin: new ByteQueue(),
    fs: new FsChannel(pid, send),
    // Starts are fair between the processes (or callers) that ask for them.
    control: new GuestControl(
      msg.memoryLimit,
      share,
      msg.env.find(([k]) => k === "SAUSAGE_PARENT")?.[1] ?? "",
    ),
    // A flood of its output waits for the core, not the other processes' frames.
    window: msg.outputWindow ? new OutputWindow(msg.outputWindow) : undefined,
  };
  running.set(pid, p);
  if (msg.request !== undefined) p.stdin.push(encoder.encode(msg.request + "\n"));
  runProcess(msg.dir, msg.world, msg.env, {
    stdin: p.stdin,
    fs: p.fs,
    control: p.control,
    maxLine: msg.maxLine,
    // Its initial memories are charged against its limit and the share before they exist.
    memories: new ProcessMemories(memories, p.control),
    window: p.window,
    onStdout: (line) => send({ op: "out", pid, line }),
    onStderr: (line) => send({ op: "err", pid, line }),
  }, {
    args: msg.args,
    cwd: msg.cwd,
    preopens: msg.preopens,
    onlyPreopens: msg.onlyPreopens,
  }).then((ended) => {
    running.delete(pid);
    p.control.releaseMemory();
    send({ op: "exit", pid, ...ended });
  });
}

function handle(msg: ToSandbox): void {
  if (msg.op === "run") return start(msg);
  if (msg.op === "ping") return send({ op: "pong", n: msg.n });
  const p = running.get(msg.pid);
  if (!p) return; // it has ended meanwhile
  switch (msg.op) {
    case "in":
      p.stdin.push(encoder.encode(msg.line + "\n"));
      break;
    case "eof":
      // After what else came in the same read (the core sends a caller's
      // next call right behind the last one's EOF): the ending process's
      // teardown does not delay the next one's start.
      setTimeout(() => p.stdin.end(), 0);
      break;
    case "kill":
      p.control.kill();
      p.stdin.end();
      p.fs.abort();
      break;
    case "fs-reply":
      p.fs.reply(msg);
      break;
    case "took":
      p.window?.took(msg.count);
      break;
  }
}

/** A `--<name>=<bytes>` argument, or `fallback` when missing or not a count. */
function bytesArg(name: string, fallback: number): number {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  const n = Number(arg?.slice(name.length + 3));
  return Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

/** This sandbox's share of the world's memory (`world_memory_mib`), which grows draw on. */
const share = new MemoryShare(bytesArg("memory-share", Infinity));

/** The memories finished processes leave for the next ones (`memory_pool_mib`). */
const memories = new MemoryPool(bytesArg("memory-pool", DEFAULT_MEMORY_POOL_MIB * 2 ** 20));

setWorldDiskBound(
  Deno.args.some((a) => a.startsWith("--disk-bytes=")) ? bytesArg("disk-bytes", 0) : undefined,
  Deno.args.find((a) => a.startsWith("--world="))?.slice("--world=".length),
);

send({ op: "ready" });
link.listen(handle);
link.closed.then((why) => {
  if (!why.startsWith("its peer closed")) console.error(`sandbox: the link to the core ${why}`);
  Deno.exit(0); // the core went away
});
