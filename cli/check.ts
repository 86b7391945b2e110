/**
 * `sausage check <plugin.wasm> [--as <name>] [--json]`: whether a file can
 * be a plugin here, before it is installed (PRX's "validate before
 * install"). It reads the file (`core/check/plugin_check.ts`: its imports
 * and whether this host binds each, the engine that will run it, its memory
 * declaration), then runs its `rpc.discover` as `<name>` in a throwaway
 * world and checks the answer as activation would: a valid document, no
 * document (activated with no methods), or a failure (refused). Exit code 0
 * when the file can be activated, 1 when not.
 *
 * @module
 */

import { checkedDocument, InvalidDocument } from "../core/activation/discover_document.ts";
import { undocumented } from "../core/activation/no_document.ts";
import { CoreCallFailed } from "../core/calls/call_as_core.ts";
import { checkPluginFile, type PluginFileReport } from "../core/check/plugin_check.ts";
import { pluginNameProblem } from "../core/world/world.ts";
import type { OpenRpcDocument } from "../rpc/openrpc.ts";
import { parseArgs, UsageError } from "./args.ts";
import { withWorld } from "./world_session.ts";
import { openWorld } from "./world_arg.ts";

/** Usage of `check`. */
export const CHECK_USAGE = "sausage check <plugin.wasm> [--as <name>] [--json]";

/** What `rpc.discover` gave: a valid document, none, or a failure. */
export type DocumentCheck =
  | { status: "valid"; methods: string[]; document: OpenRpcDocument }
  | { status: "none"; why: string }
  | { status: "invalid"; problems: string[] }
  | { status: "failed"; error: string };

/** The whole report of `check`, as `--json` prints it. */
export interface CheckReport extends PluginFileReport {
  file: string;
  /** The plugin name the file was run as. */
  plugin: string;
  /** The outcome of its `rpc.discover`; absent when nothing can run it. */
  document?: DocumentCheck;
  /** Whether `core.activate` would take it (as a new plugin, checked against no other). */
  activatable: boolean;
}

/** A plugin name from a file name: `My Plugin.wasm` → `my-plugin`. */
function nameFrom(file: string): string {
  const base = file.slice(file.lastIndexOf("/") + 1).replace(/\.wasm$/, "").toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-").slice(0, 64).replace(/^-+|-+$/g, "");
  return base && pluginNameProblem(base) === null ? base : "plugin";
}

/** Runs the file's `rpc.discover` as `plugin` in a throwaway world, and checks the answer. */
async function discover(bytes: Uint8Array, plugin: string): Promise<DocumentCheck> {
  const root = await Deno.makeTempDir({ prefix: "sausage-check-" });
  try {
    await Deno.mkdir(`${root}/plugins/${plugin}`, { recursive: true });
    await Deno.writeFile(`${root}/plugins/${plugin}/plugin.wasm`, bytes);
    const r = await withWorld(
      openWorld(root),
      "check",
      () => {},
      (send) => send(`${plugin}.rpc.discover`, {}),
    );
    if (r.error) {
      const { code, message, data } = r.error;
      const why = undocumented(new CoreCallFailed(message, code, data));
      return why === null ? { status: "failed", error: message } : { status: "none", why };
    }
    try {
      const document = checkedDocument(plugin, r.result);
      return { status: "valid", methods: document.methods.map((m) => m.name), document };
    } catch (e) {
      if (e instanceof InvalidDocument) return { status: "invalid", problems: e.problems };
      throw e;
    }
  } finally {
    await Deno.remove(root, { recursive: true }).catch(() => {});
  }
}

/** Checks `file` as `plugin`. */
export async function checkFile(file: string, plugin: string): Promise<CheckReport> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(file);
  } catch (e) {
    throw new Error(`cannot read ${file}: ${e instanceof Error ? e.message : e}`);
  }
  let report: PluginFileReport;
  try {
    report = checkPluginFile(bytes);
  } catch (e) {
    throw new Error(
      `${file} is not a plugin: ${e instanceof Error ? e.message : e}; a plugin is a ` +
        "WebAssembly core module importing WASI preview 1, or a WASI 0.2 command component",
    );
  }
  const document = report.engine === null ? undefined : await discover(bytes, plugin);
  const activatable = report.problems.length === 0 &&
    (document?.status === "valid" || document?.status === "none");
  return { file, plugin, ...report, ...(document ? { document } : {}), activatable };
}

/** The report for people. */
export function checkText(r: CheckReport): string[] {
  const kind = r.kind === "module"
    ? "a core module (WASI preview 1)"
    : "a component (WASI 0.2 command component)";
  const lines = [`${r.file}: ${kind}, ${r.bytes} bytes, checked as the plugin ${r.plugin}`];
  lines.push(`engine: ${r.engine ?? "none"}: ${r.engineWhy}`);
  const unbound = r.imports.filter((i) => i.boundBy === null);
  lines.push(
    `imports: ${r.imports.length}${
      unbound.length ? `, ${unbound.length} not bound by this host` : ", all bound"
    }`,
  );
  const by = {
    preview1: "preview-1 binding",
    "wasi-0.2": "WASI 0.2 (canonical ABI)",
    memory: "the process's memory",
    component: "the component (jco's glue)",
  };
  for (const i of r.imports) {
    lines.push(
      `  ${i.module}.${i.name} (${i.kind}): ${i.boundBy ? by[i.boundBy] : "NOT BOUND here"}`,
    );
  }
  if (r.memory) {
    const max = r.memory.maximumPages === undefined
      ? "no maximum of its own"
      : `maximum ${r.memory.maximumPages} pages (${r.memory.maximumMib} MiB)`;
    lines.push(
      `memory: initial ${r.memory.initialPages} pages (${r.memory.initialMib} MiB), ${max}; ` +
        "the world's memory_mib bounds its growth (256 MiB by default)",
    );
  } else lines.push("memory: none declared");
  const d = r.document;
  if (!d) lines.push("rpc.discover: not run (nothing here runs this file)");
  else if (d.status === "valid") {
    lines.push(
      `rpc.discover: a valid document, ${d.methods.length} ${
        d.methods.length === 1 ? "method" : "methods"
      }${d.methods.length ? `: ${d.methods.join(", ")}` : ""}`,
    );
  } else if (d.status === "none") {
    lines.push(
      `rpc.discover: no document (${d.why}): it can be activated and called by name, ` +
        "with no methods in methods or MCP",
    );
  } else if (d.status === "invalid") {
    lines.push("rpc.discover: NOT a valid OpenRPC document (activation refuses it):");
    for (const p of d.problems) lines.push(`  ${p}`);
  } else lines.push(`rpc.discover: FAILED (activation refuses it): ${d.error}`);
  for (const p of r.problems) lines.push(`problem: ${p}`);
  lines.push(
    r.activatable
      ? `sausage: ${r.file} can be a plugin here: sausage call <world> core.activate ` +
        `'{"plugin": "${r.plugin}", "wasm": "/path/in/the/world.wasm"}'`
      : `sausage: ${r.file} cannot be activated as it is`,
  );
  return lines;
}

/** Runs the subcommand; resolves with the exit code. */
export async function check(args: string[]): Promise<number> {
  const { positional, flags } = parseArgs(args, ["--json"], ["--as"]);
  if (positional.length !== 1) throw new UsageError(`usage: ${CHECK_USAGE}`);
  const file = positional[0];
  const as = flags.get("--as");
  if (typeof as === "string") {
    const problem = pluginNameProblem(as);
    if (problem) throw new UsageError(problem);
  }
  const report = await checkFile(file, typeof as === "string" ? as : nameFrom(file));
  if (flags.has("--json")) console.log(JSON.stringify(report));
  else console.log(checkText(report).join("\n"));
  return report.activatable ? 0 : 1;
}
