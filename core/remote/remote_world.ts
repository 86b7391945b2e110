/**
 * A world's side of NATS on its host, when `config/nats.json` asks for it:
 * the connection (kept up in the background: the host runs whether NATS is
 * there or not), the workers (`worker_set.ts`) and the placement of
 * processes (`placement.ts`).
 *
 *     { "url": "nats://10.0.0.5:4222", "user": "host-notes", "password": "…", "world": "notes" }
 *
 * `world` defaults to the world folder's name. The password: `password`,
 * or a `password_file`, or `SAUSAGE_NATS_PASSWORD`; keep it outside the
 * world (guests can read `config/` and `state/`): an absolute
 * `password_file` or the variable. A `tls://` URL turns
 * on TLS; `ca_file` (PEM) names a CA to trust beside the system's.
 *
 * @module
 */

import { readConfigFile } from "../world/config_file.ts";
import { NatsClient } from "./nats_client.ts";
import { Subjects } from "./wire.ts";
import { DEFAULT_LOSS_MS, type WorkerEvents, WorkerSet } from "./worker_set.ts";
import { Placer, readPlacement } from "./placement.ts";
import type { SandboxPool } from "../sandboxes/sandbox_pool.ts";
import type { Mount } from "../../vfs/mount.ts";

/** What `config/nats.json` holds. */
export interface NatsConfig {
  url: string;
  user?: string;
  password?: string;
  /** The world's name on NATS (its subjects' prefix). */
  world: string;
  /** CA certificates (PEM) to trust for a `tls://` URL. */
  caCerts?: string[];
  /** Silence after which a worker is lost (ms; default 2500). */
  loss_ms: number;
  /** The most workers at once (default 256): heartbeats of more are ignored. */
  max_workers: number;
}

/** Reads `config/nats.json`; undefined when absent; throws a one-line error when wrong. */
export function readNatsConfig(root: string): NatsConfig | undefined {
  const raw = readConfigFile(root, "config/nats.json") as Record<string, unknown> | undefined;
  if (raw === undefined) return undefined;
  const bad = (what: string) => new Error(`config/nats.json: ${what}`);
  if (typeof raw !== "object" || raw === null) throw bad("must be an object");
  const text = (k: string) => {
    if (raw[k] !== undefined && typeof raw[k] !== "string") throw bad(`"${k}" must be a string`);
    return raw[k] as string | undefined;
  };
  const url = text("url");
  if (!url) throw bad(`"url" is missing (nats://host:port)`);
  const read = (file: string) =>
    Deno.readTextFileSync(file.startsWith("/") ? file : `${root}/${file}`);
  let password = text("password");
  const file = text("password_file");
  if (password === undefined && file) password = read(file).trim();
  password ??= Deno.env.get("SAUSAGE_NATS_PASSWORD");
  const ca = text("ca_file");
  const loss = raw.loss_ms ?? DEFAULT_LOSS_MS;
  if (!Number.isInteger(loss) || (loss as number) < 500) {
    throw bad(`"loss_ms" must be an integer of at least 500`);
  }
  const max = raw.max_workers ?? 256;
  if (!Number.isInteger(max) || (max as number) < 1) {
    throw bad(`"max_workers" must be an integer of at least 1`);
  }
  return {
    max_workers: max as number,
    url,
    user: text("user"),
    password,
    world: text("world") ?? root.split("/").filter(Boolean).at(-1)!,
    caCerts: ca ? [read(ca)] : undefined,
    loss_ms: loss as number,
  };
}

/** The host's NATS side of one world. */
export class RemoteWorld {
  readonly client: NatsClient;
  readonly workers: WorkerSet;
  readonly placer: Placer;
  readonly subjects: Subjects;

  /**
   * @param config the world's `config/nats.json`
   * @param root the world folder (for `config/placement.json`)
   * @param world `/` of remote processes: the world folder as a mount, with its disk bound
   * @param pool the host's sandboxes
   * @param events the journal's core events
   * @param report told (once) when the server refuses the host's credentials
   */
  constructor(
    readonly config: NatsConfig,
    root: string,
    world: Mount,
    pool: SandboxPool,
    events: WorkerEvents,
    report: (line: string) => void = () => {},
  ) {
    this.subjects = new Subjects(config.world);
    this.client = NatsClient.open({
      url: config.url,
      user: config.user,
      password: config.password,
      caCerts: config.caCerts,
      name: `sausage host ${config.world}`,
      inboxPrefix: this.subjects.hostInbox,
      onStatus: (down) => this.workers.natsStatus(down),
      onPermission: (r) => {
        report(`sausage: NATS refused the host's ${r.operation} on ${r.subject}: ${r.message}`);
        this.workers.refusedByNats(r);
      },
    });
    this.client.refusal.catch((e) => {
      report(`sausage: ${e.message} (config/nats.json); remote placements fail until it is fixed`);
      events("nats-down", { reason: e.message });
    });
    this.workers = new WorkerSet(
      this.client,
      this.subjects,
      world,
      events,
      config.loss_ms,
      config.max_workers,
    );
    this.workers.start();
    this.placer = new Placer(pool, this.workers, readPlacement(root), () => this.client.down);
  }

  /** Stops listening and closes the connection. */
  close(): void {
    this.workers.close();
    this.client.close();
  }
}
