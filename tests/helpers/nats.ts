/**
 * A real `nats-server` for tests: on a free loopback port, with one host
 * user and one worker user per world, each allowed that world's subjects
 * only (the configuration README's "More than one machine" shows).
 *
 * @module
 */

import { freePort } from "./net.ts";

/** Where `nats-server` is, or null when it is not installed. */
export function natsServerPath(): string | null {
  for (const dir of ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"]) {
    try {
      if (Deno.statSync(`${dir}/nats-server`).isFile) return `${dir}/nats-server`;
    } catch { /* not there */ }
  }
  return null;
}

/** The credentials of one world. */
export interface WorldUsers {
  host: { user: string; password: string };
  worker: { user: string; password: string };
}

/** The per-world users of a server configuration. */
export function worldUsers(world: string): WorldUsers {
  const secret = () => crypto.randomUUID().replaceAll("-", "");
  return {
    host: { user: `host-${world}`, password: secret() },
    worker: { user: `worker-${world}`, password: secret() },
  };
}

/** The `authorization` users of a world: the host and its workers, its subjects only. */
function usersText(world: string, u: WorldUsers): string {
  const s = `sausage.${world}`;
  return `
    { user: "${u.host.user}", password: "${u.host.password}",
      permissions: { publish: ["${s}.>"], subscribe: ["${s}.>"] } }
    { user: "${u.worker.user}", password: "${u.worker.password}",
      permissions: {
        publish: ["${s}.hb", "${s}.host", "${s}.blob"],
        subscribe: ["${s}.w.>", "${s}.inbox.>"] } }`;
}

/** A running nats-server. */
export class TestNats {
  readonly url: string;
  private child: Deno.ChildProcess | null = null;

  private constructor(private bin: string, private conf: string, readonly port: number) {
    this.url = `nats://127.0.0.1:${port}`;
  }

  /** Starts a server with users for `worlds` (and `extra.tls`, a `tls { … }` block). */
  static async start(
    worlds: Record<string, WorldUsers>,
    extra: { tls?: string } = {},
  ): Promise<TestNats> {
    const bin = natsServerPath();
    if (!bin) throw new Error("nats-server is not installed");
    const dir = await Deno.makeTempDir({ prefix: "sausage-nats-" });
    const port = freePort();
    const users = Object.entries(worlds).map(([w, u]) => usersText(w, u)).join("\n");
    const conf = `${dir}/nats.conf`;
    await Deno.writeTextFile(
      conf,
      `listen: 127.0.0.1:${port}\nmax_payload: 8MB\n${extra.tls ?? ""}\n` +
        `authorization {\n  users = [${users}\n  ]\n}\n`,
    );
    const nats = new TestNats(bin, conf, port);
    await nats.restart();
    return nats;
  }

  /** Starts the server again (after `stop`); resolves once it takes connections. */
  async restart(): Promise<void> {
    this.child = new Deno.Command(this.bin, {
      args: ["-c", this.conf],
      stdout: "null",
      stderr: "null",
    }).spawn();
    for (let i = 0; i < 100; i++) {
      try {
        (await Deno.connect({ hostname: "127.0.0.1", port: this.port })).close();
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    throw new Error(`nats-server did not listen on ${this.port}`);
  }

  /** Stops the server (SIGTERM) and waits for it to exit. */
  async stop(): Promise<void> {
    if (!this.child) return;
    try {
      this.child.kill("SIGTERM");
    } catch { /* gone */ }
    await this.child.status;
    this.child = null;
  }
}
