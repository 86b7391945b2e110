/**
 * `core.secret {name}` (PROTOCOL 9.1): the value of a secret for the calling
 * process's plugin, when `config/secrets.json` lists that plugin for it and
 * the world's owner set it (`sausage secret set`). Both files are read at
 * each call, so a change takes effect at the next one, without a restart.
 *
 * The value goes to the process's stdin and nowhere else: the journal gets a
 * `secret` event with the pid, the plugin, the name and whether it was
 * granted; errors name the secret and the plugin, never a value.
 *
 * @module
 */

import { HostError } from "../../rpc/errors.ts";
import type { CoreMethod } from "../calls/core_method.ts";
import type { Caller, Process } from "../processes/process.ts";
import { readSecretGrants, SECRETS_CONFIG } from "./secrets_config.ts";
import { secretNameProblem } from "./secret_name.ts";
import { readSecretStore, SecretStoreError } from "./secret_store.ts";
import { secretsFilePath } from "./secrets_path.ts";

/** Why a secret was refused (`data.reason` of -32006). */
export type SecretRefusal = "not-allowed" | "not-set" | "unreadable";

/** What the service needs of the host. */
export interface SecretServiceDeps {
  /** The world's real path. */
  root: string;
  /** Journals an event of the core about a process (`ProcessLog.event`). */
  event(p: Process, event: Record<string, unknown>): void;
  /** The secrets file (default: `secretsFilePath(root)`). */
  storePath?: string;
}

/** The secrets of one world, as its processes ask for them. */
export class SecretService {
  private path: Promise<string>;

  /** A service for the world of `deps.root`. */
  constructor(private deps: SecretServiceDeps) {
    this.path = deps.storePath !== undefined
      ? Promise.resolve(deps.storePath)
      : secretsFilePath(deps.root);
  }

  /** What is wrong with `config/secrets.json` now (one line each), for the host's start. */
  problems(): string[] {
    return readSecretGrants(this.deps.root).problems;
  }

  /**
   * The value of the secret `name` for the process `p`. Throws -32602 for a
   * bad name, -32006 (`secret-refused`) when `p`'s plugin may not read it,
   * when it is not set, or when the secrets file cannot be used.
   */
  async read(p: Process, name: unknown): Promise<string> {
    const plugin = p.plugin;
    const nameProblem = secretNameProblem(name);
    if (nameProblem) {
      throw new HostError("invalid-params", `core.secret: ${nameProblem}`, { plugin });
    }
    const secret = name as string;
    const refuse = (reason: SecretRefusal, message: string): never => {
      this.deps.event(p, { event: "secret", pid: p.pid, plugin, name: secret, granted: false });
      throw new HostError("secret-refused", message, { secret, plugin, reason });
    };
    const { grants, problems } = readSecretGrants(this.deps.root);
    const allowed = grants.get(secret);
    if (!allowed?.has(plugin)) {
      const why = allowed
        ? `${SECRETS_CONFIG} does not list ${plugin} in "${secret}".plugins`
        : `${SECRETS_CONFIG} does not list the secret ${secret}`;
      const broken = problems.length ? ` (${SECRETS_CONFIG} has problems: ${problems[0]})` : "";
      refuse("not-allowed", `${plugin} may not read the secret ${secret}: ${why}${broken}`);
    }
    const path = await this.path;
    let value: string | undefined;
    try {
      value = readSecretStore(path, this.deps.root).secrets[secret];
    } catch (e) {
      const why = e instanceof SecretStoreError ? e.message : `${path}: ${(e as Error).message}`;
      refuse("unreadable", `the secret ${secret} cannot be read: ${why}`);
    }
    if (value === undefined) {
      refuse(
        "not-set",
        `the secret ${secret} is not set: the world's owner sets it with ` +
          `\`sausage secret set <world> ${secret}\``,
      );
    }
    this.deps.event(p, { event: "secret", pid: p.pid, plugin, name: secret, granted: true });
    return value!;
  }

  /** `core.secret`. */
  methods(): Map<string, CoreMethod> {
    return new Map<string, CoreMethod>([
      ["secret", async (caller: Caller, params) => {
        if (!("pid" in caller)) {
          throw new HostError(
            "invalid-request",
            "secrets belong to plugins: call core.secret from a plugin's process " +
              "(the owner sees them with `sausage secret list <world>`)",
          );
        }
        return { value: await this.read(caller as Process, params.name) };
      }],
    ]);
  }
}
