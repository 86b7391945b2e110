/**
 * A real `nats-server` for tests: on a free loopback port, with one host
 * user per world, allowed that world's subjects, and one user per worker,
 * allowed that worker's own (the configuration README's "More than one
 * machine" shows).
 *
 * @module
 */

import { freePort } from "./net.ts";
import { type Permissions, Subjects } from "../../core/remote/wire.ts";

/** Where `nats-server` is, or null when it is not installed. */
export function natsServerPath(): string | null {
  for (const dir of ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"]) {
    try {
      if (Deno.statSync(`${dir}/nats-server`).isFile) return `${dir}/nats-server`;
    } catch { /* not there */ }
  }
  return null;
}

/** A user and password. */
export interface Credentials {
  user: string;
  password: string;
}

/** The credentials of one world: its host's, and each worker's own. */
export interface WorldUsers {
  host: Credentials;
  workers: Record<string, Credentials>;
}

/** The per-world users of a server configuration: the host and workers `ids`. */
export function worldUsers(world: string, ids: string[] = ["w1", "w2", "w3"]): WorldUsers {
  const secret = () => crypto.randomUUID().replaceAll("-", "");
  return {
    host: { user: `host-${world}`, password: secret() },
    workers: Object.fromEntries(
      ids.map((id) => [id, { user: `worker-${world}-${id}`, password: secret() }]),
    ),
  };
}

/**
 * The `authorization` users of a world: the host (the world's subjects),
 * each worker its own (`Subjects.workerPermissions`).
 */
function usersText(world: string, u: WorldUsers): string {
  const s = new Subjects(world);
  const perms = (p: Permissions) =>
    `permissions: { publish: ${JSON.stringify(p.publish)}, subscribe: ${
      JSON.stringify(p.subscribe)
    } }`;
  const lines = [
    `{ user: "${u.host.user}", password: "${u.host.password}", ${perms(s.hostPermissions())} }`,
    ...Object.entries(u.workers).map(([id, c]) =>
      `{ user: "${c.user}", password: "${c.password}", ${perms(s.workerPermissions(id))} }`
    ),
  ];
  return lines.join("\n");
}

/** A running nats-server. */
export class TestNats {
  readonly url: string;
  private child: Deno.ChildProcess | null = null;

  private constructor(private bin: string, private conf: string, readonly port: number) {
    this.url = `nats://127.0.0.1:${port}`;
  }

  /**
   * Starts a server with users for `worlds` (and `extra.tls`, a `tls { … }`
   * block; `extra.users`, more lines of users, e.g. `sausage workers add`'s).
   */
  static async start(
    worlds: Record<string, WorldUsers>,
    extra: { tls?: string; users?: string[] } = {},
  ): Promise<TestNats> {
    const bin = natsServerPath();
    if (!bin) throw new Error("nats-server is not installed");
    const dir = await Deno.makeTempDir({ prefix: "sausage-nats-" });
    const port = freePort();
    const users = [
      ...Object.entries(worlds).map(([w, u]) => usersText(w, u)),
      ...(extra.users ?? []),
    ].join("\n");
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
