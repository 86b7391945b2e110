/**
 * Where a plugin's processes run (`config/placement.json`): `local` (the
 * host's sandboxes, the default), `remote` (a worker only: the call fails at
 * once when none is there) or `anywhere` (the least loaded per sandbox of
 * the host's sandboxes and the workers). Commands and core-made calls stay
 * local.
 *
 *     { "default": "local", "plugins": { "render": "remote", "echo": "anywhere" } }
 *
 * @module
 */

import { readConfigFile } from "../world/config_file.ts";
import { HostError } from "../../rpc/errors.ts";
import type { GuestSandbox } from "../sandboxes/guest_runner.ts";
import type { SandboxPool } from "../sandboxes/sandbox_pool.ts";
import type { WorkerSet } from "./worker_set.ts";

/** Where processes of a plugin may run. */
export type Where = "local" | "remote" | "anywhere";

const WHERE = new Set<string>(["local", "remote", "anywhere"]);

/** The world's placement rules. */
export interface Placement {
  default: Where;
  plugins: Record<string, Where>;
}

/** Reads `config/placement.json` (absent: everything local); throws a one-line error when wrong. */
export function readPlacement(root: string): Placement {
  const raw = readConfigFile(root, "config/placement.json") as Record<string, unknown> | undefined;
  const placement: Placement = { default: "local", plugins: {} };
  if (raw === undefined) return placement;
  const bad = (what: string) => new Error(`config/placement.json: ${what}`);
  if (typeof raw !== "object" || raw === null) throw bad("must be an object");
  if (raw.default !== undefined) {
    if (!WHERE.has(raw.default as string)) throw bad(`"default" must be local, remote or anywhere`);
    placement.default = raw.default as Where;
  }
  const plugins = raw.plugins ?? {};
  if (typeof plugins !== "object" || plugins === null) throw bad(`"plugins" must be an object`);
  for (const [name, where] of Object.entries(plugins)) {
    if (!WHERE.has(where as string)) throw bad(`"${name}" must be local, remote or anywhere`);
    placement.plugins[name] = where as Where;
  }
  return placement;
}

/** Places processes on the host's sandboxes or on workers, per plugin. */
export class Placer {
  constructor(
    private pool: SandboxPool,
    private workers: WorkerSet,
    private placement: Placement,
    /** Why no remote placement can be made now (NATS down), or null. */
    private natsDown: () => string | null,
  ) {}

  /** Where processes of `plugin` may run. */
  where(plugin: string | undefined): Where {
    if (plugin === undefined) return "local";
    return this.placement.plugins[plugin] ?? this.placement.default;
  }

  /** A sandbox for one more process of `plugin` (none: a command or the core's: local). */
  async place(plugin?: string): Promise<GuestSandbox> {
    const where = this.where(plugin);
    if (where === "local") return await this.pool.place();
    if (where === "remote") await this.workers.settle(); // right after start: a heartbeat
    const worker = this.natsDown() === null ? this.workers.pick() : null;
    if (where === "anywhere") {
      if (worker && worker.share < this.localShare()) {
        worker.picked();
        return worker;
      }
      return await this.pool.place();
    }
    if (!worker) {
      const down = this.natsDown();
      throw new HostError(
        "no-answer",
        `${plugin} runs on workers only (config/placement.json) and ` +
          (down ? `NATS is unreachable (${down})` : "no worker is there"),
        { reason: "no-worker" },
      );
    }
    worker.picked();
    return worker;
  }

  /** The host's own load per sandbox. */
  private localShare(): number {
    const live = this.pool.sandboxes.filter((s) => !s.hasEnded);
    if (!live.length) return 0;
    return live.reduce((n, s) => n + s.load, 0) / live.length;
  }
}
