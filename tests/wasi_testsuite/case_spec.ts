/**
 * The specification of one wasi-testsuite case (`<name>.json` beside
 * `<name>.wasm`, doc/specification.md of the suite): both the legacy form
 * (`args`, `env`, `root`, `exit_code`, `stdout`, `stderr`) and the
 * operation-based one (`run`, `read`, `wait`), reduced to what a run needs
 * and what it must show. Cases that need a client or server of the runner
 * (`connect`, `send`, `recv`, `write`, HTTP endpoints) or a proposal
 * (`http`, `sockets`) cannot apply here: they say why.
 *
 * @module
 */

/** What a case runs with and what it must show. */
export interface CaseSpec {
  /** Arguments after the program name. */
  args: string[];
  /** The whole environment, nothing else. */
  env: Record<string, string>;
  /** A folder, relative to the case's folder, preopened as `/`; null: none. */
  root: string | null;
  /** The exit code. */
  exitCode: number;
  /** What stdout must start with. */
  stdout: string;
  /** What stderr must start with. */
  stderr: string;
}

/** A case that this runner cannot run, and why. */
export interface NotApplicable {
  reason: string;
}

/** The default spec of a case without a `.json`. */
export const DEFAULT_SPEC: CaseSpec = {
  args: [],
  env: {},
  root: null,
  exitCode: 0,
  stdout: "",
  stderr: "",
};

type Json = Record<string, unknown>;

function strings(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
    throw new Error(`${what} must be a list of strings`);
  }
  return v as string[];
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw new Error(`${what} must be an object`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v as Json)) {
    if (typeof x !== "string") throw new Error(`${what}.${k} must be a string`);
    out[k] = x;
  }
  return out;
}

/**
 * Reads a spec from its parsed JSON (undefined: no `.json`, the default).
 * Throws for a malformed spec.
 */
export function parseCaseSpec(json: unknown): CaseSpec | NotApplicable {
  if (json === undefined) return { ...DEFAULT_SPEC };
  if (typeof json !== "object" || json === null) throw new Error("a spec is a JSON object");
  const j = json as Json;
  const proposals = strings(j.proposals, "proposals");
  if (proposals.length > 0) {
    return { reason: `needs the ${proposals.join(", ")} proposal(s) of the suite's runner` };
  }
  if (j.world !== undefined && j.world !== "wasi:cli/command") {
    return { reason: `runs as ${j.world}, not as a command` };
  }
  if (!Array.isArray(j.operations)) {
    return {
      args: strings(j.args, "args"),
      env: stringMap(j.env, "env"),
      root: typeof j.root === "string" ? j.root : null,
      exitCode: typeof j.exit_code === "number" ? j.exit_code : 0,
      stdout: typeof j.stdout === "string" ? j.stdout : "",
      stderr: typeof j.stderr === "string" ? j.stderr : "",
    };
  }
  const spec = { ...DEFAULT_SPEC };
  let runs = 0;
  for (const op of j.operations as Json[]) {
    switch (op.type) {
      case "run":
        if (++runs > 1) return { reason: "runs the program more than once" };
        spec.args = strings(op.args, "run.args");
        spec.env = stringMap(op.env, "run.env");
        spec.root = typeof op.root === "string" ? op.root : null;
        break;
      case "read":
        if (op.id === "stderr") spec.stderr += String(op.payload ?? "");
        else spec.stdout += String(op.payload ?? "");
        break;
      case "wait":
        spec.exitCode = typeof op.exit_code === "number" ? op.exit_code : 0;
        break;
      default:
        return { reason: `needs the suite runner's "${op.type}" operation (a client or server)` };
    }
  }
  return spec;
}
