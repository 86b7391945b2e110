/**
 * The hop between the core and a sandbox on this machine: what carries the
 * frames of `sandbox/frames.ts` under a `StreamLink`: the subprocess's
 * stdin and stdout (the default), or a Unix socket (`SAUSAGE_HOP=unix`,
 * for measuring: the socket lives in a folder of its own, owner-only,
 * removed once the sandbox has connected). The pipes stay the default: a
 * sandbox writes them with blocking writes, so a guest that floods its
 * stdout waits for the core (at most a pipe's buffer in flight); a socket
 * has only async writes in Deno, so its queue in the sandbox has no bound,
 * and it did not measure cheaper (DECISIONS, "The core's share").
 *
 * @module
 */

import { type ByteDuplex, laterDuplex, rawDuplex, streamDuplex } from "../sandbox/link.ts";

/** The carriers a sandbox on this machine can be reached by. */
export type HopKind = "unix" | "pipe";

/** The hop new sandboxes use (`SAUSAGE_HOP`, for measuring one against the other). */
export function hopKind(): HopKind {
  try {
    return Deno.env.get("SAUSAGE_HOP") === "unix" ? "unix" : "pipe";
  } catch {
    return "pipe"; // no permission to read the environment
  }
}

/** One sandbox's hop, before and after its subprocess starts. */
export interface Hop {
  /** The sandbox's arguments that say how to reach the core. */
  args: string[];
  /** A folder the sandbox must be allowed to read and write (the socket's), if any. */
  folder?: string;
  /** How the subprocess's stdin and stdout are set. */
  stdio: "piped" | "null";
  /** The bytes both ways, once the subprocess runs. */
  duplex(child: Deno.ChildProcess): ByteDuplex;
  /** Called when the sandbox ended: nothing is left behind. */
  done(): void;
}

/** The subprocess's stdin and stdout. */
export function pipeHop(): Hop {
  return {
    args: [],
    stdio: "piped",
    duplex: (child) => streamDuplex(child.stdout, child.stdin),
    done: () => {},
  };
}

/** A Unix socket the sandbox connects to (`--link=unix:<path>`). */
export function unixHop(): Hop {
  const folder = Deno.makeTempDirSync({ prefix: "sausage-hop-" }); // 0700
  const path = `${folder}/s`;
  const listener = Deno.listen({ transport: "unix", path });
  const clean = () => {
    try {
      listener.close();
    } catch { /* closed */ }
    try {
      Deno.removeSync(folder, { recursive: true });
    } catch { /* gone */ }
  };
  return {
    args: [`--link=unix:${path}`],
    folder,
    stdio: "null",
    duplex: () =>
      laterDuplex(listener.accept().then((conn) => {
        clean(); // one connection: no other can follow
        return rawDuplex(conn);
      })),
    done: clean,
  };
}
