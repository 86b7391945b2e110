/**
 * The hop between the core and a sandbox on this machine: what carries the
 * frames of `sandbox/hop/frames.ts` under a `StreamLink`. By default ("split")
 * the core writes to a Unix socket and reads the sandbox's stdout: a
 * sandbox reads the socket directly (reading its stdin goes through Deno's
 * blocking-read thread) and writes its stdout with blocking writes, so a
 * guest that floods its output waits for the core, with at most a pipe's
 * buffer in flight. Deno has only async writes on a socket, so a sandbox
 * writing one would queue without a bound. `SAUSAGE_HOP=pipe` (stdin and
 * stdout) and `=unix` (the socket both ways) are kept for measuring
 * (`bench/hop_cost.ts`, DECISIONS "The core's share"). The socket lives in
 * a folder of its own, owner-only, removed once the sandbox has connected.
 *
 * @module
 */

import { type ByteDuplex, laterDuplex, rawDuplex, streamDuplex } from "../../sandbox/hop/link.ts";

/** The carriers a sandbox on this machine can be reached by. */
export type HopKind = "split" | "unix" | "pipe";

/** The hop new sandboxes use (`SAUSAGE_HOP`, for measuring one against the other). */
export function hopKind(): HopKind {
  let kind: string | undefined;
  try {
    kind = Deno.env.get("SAUSAGE_HOP");
  } catch { /* no permission to read the environment */ }
  return kind === "unix" || kind === "pipe" ? kind : "split";
}

/** The hop of a new sandbox: the pipes when a socket cannot be made (a `TMPDIR` too long for one). */
export function newHop(kind = hopKind()): Hop {
  if (kind === "pipe") return pipeHop();
  try {
    return socketHop(kind);
  } catch {
    return pipeHop();
  }
}

/** One sandbox's hop, before and after its subprocess starts. */
export interface Hop {
  /** The sandbox's arguments that say how to reach the core. */
  args: string[];
  /** A folder the sandbox must be allowed to read and write (the socket's), if any. */
  folder?: string;
  /** How the subprocess's stdin and stdout are set. */
  stdin: "piped" | "null";
  stdout: "piped" | "null";
  /** The bytes both ways, once the subprocess runs. */
  duplex(child: Deno.ChildProcess): ByteDuplex;
  /** Called when the sandbox ended: nothing is left behind. */
  done(): void;
}

/** The subprocess's stdin and stdout. */
export function pipeHop(): Hop {
  return {
    args: [],
    stdin: "piped",
    stdout: "piped",
    duplex: (child) => streamDuplex(child.stdout, child.stdin),
    done: () => {},
  };
}

/**
 * A Unix socket the sandbox connects to (`--link=<kind>:<path>`): both ways
 * (`unix`), or only from the core, the sandbox answering on its stdout
 * (`split`).
 */
function socketHop(kind: "split" | "unix"): Hop {
  const folder = Deno.makeTempDirSync({ prefix: "sausage-hop-" }); // 0700
  const path = `${folder}/s`;
  let listener: Deno.UnixListener;
  try {
    listener = Deno.listen({ transport: "unix", path });
  } catch (e) {
    Deno.removeSync(folder, { recursive: true });
    throw e;
  }
  const clean = () => {
    try {
      listener.close();
    } catch { /* closed */ }
    try {
      Deno.removeSync(folder, { recursive: true });
    } catch { /* gone */ }
  };
  return {
    args: [`--link=${kind}:${path}`],
    folder,
    stdin: "null",
    stdout: kind === "split" ? "piped" : "null",
    duplex: (child) => {
      const socket = laterDuplex(
        listener.accept().then((conn) => {
          clean(); // one connection: no other can follow
          return rawDuplex(conn);
        }),
      );
      if (kind === "unix") return socket;
      // A reader with its own buffer: the default one allocates (and zeroes)
      // 64 KiB for each chunk the sandbox writes, two a call.
      const out = child.stdout.getReader({ mode: "byob" });
      let buf = new Uint8Array(256 * 1024);
      return {
        read: async () => {
          const r = await out.read(buf);
          if (r.done || !r.value) return null;
          buf = new Uint8Array(r.value.buffer); // the same memory, handed back
          return r.value;
        },
        write: (bytes) => socket.write(bytes),
        close: () => {
          out.cancel().catch(() => {});
          socket.close();
        },
      };
    },
    done: clean,
  };
}
