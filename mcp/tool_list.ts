/**
 * The MCP tools of a world: one per method of every plugin's current
 * `rpc.discover` document (`/proc/core/plugins/<name>/discover.json`), less
 * what `config/mcp.json` leaves out. Endpoint interfaces are not tools: their
 * methods are served by a running process on its own TCP connection, not
 * through the core, so a tool call could not reach them.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Graph } from "../rpc/graph.ts";
import type { MethodObject, OpenRpcDocument } from "../rpc/openrpc.ts";
import { MCP_CONFIG_PATH, parseToolFilter } from "./mcp_config.ts";
import { inputSchema, outputSchema, wrapsResult } from "./tool_schema.ts";
import { toolNames } from "./tool_names.ts";
import type { WorldLink } from "./world_link.ts";

/** One tool and the method behind it. */
export interface ToolEntry {
  /** What `tools/list` shows. */
  tool: Tool;
  /** The method a call makes: `<plugin>.<method>`. */
  method: string;
  /** True when the structured content wraps the result as `{"result": …}`. */
  wraps: boolean;
  /** True when the tool has an output schema, so a call returns structured content. */
  structured: boolean;
}

/** The tools of a world at one moment, and the plugins they came from. */
export interface ToolList {
  /** The tools by name, in the order `tools/list` shows them. */
  byName: Map<string, ToolEntry>;
  /** Every plugin that has a `plugin.wasm`, whether or not it gave tools. */
  plugins: string[];
}

/** The `_meta` key that holds a tool's method name. */
const METHOD_META = "sausage/method";

const decoder = new TextDecoder();

/** Reads a JSON file of the world through the link. */
async function readJson<T>(link: WorldLink, path: string): Promise<T> {
  return JSON.parse(decoder.decode(await link.read(path))) as T;
}

/** True for the error of a read of a file that does not exist. */
function isMissing(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return code === "no-entry" || /no-entry/.test(String((e as Error).message ?? ""));
}

/** The text of `config/mcp.json`, or undefined when there is none. */
async function configText(link: WorldLink): Promise<string | undefined> {
  try {
    return decoder.decode(await link.read(MCP_CONFIG_PATH));
  } catch (e) {
    if (isMissing(e)) return undefined;
    throw e;
  }
}

/** A method's summary and description, as one text. */
function describe(method: MethodObject, plugin: string): string {
  const parts = [method.summary, method.description].filter((t): t is string => !!t?.trim());
  return parts.length ? parts.join("\n\n") : `Calls ${plugin}.${method.name}.`;
}

/** Reads the documents of the world and makes its tool list. */
export async function loadTools(link: WorldLink): Promise<ToolList> {
  const filter = parseToolFilter(await configText(link));
  const graph = await readJson<Graph>(link, "/proc/core/graph.json");
  const plugins = graph.plugins.map((p) => p.name);
  const found: { method: string; plugin: string; m: MethodObject; doc: OpenRpcDocument }[] = [];
  const docs = await Promise.all(
    graph.plugins.map(async (p) => {
      if (!p.methods.some((m) => filter.allows(`${p.name}.${m}`))) return null;
      try {
        const path = `/proc/core/plugins/${p.name}/discover.json`;
        return { plugin: p.name, doc: await readJson<OpenRpcDocument>(link, path) };
      } catch {
        return null; // gone or changed meanwhile: the next list has it
      }
    }),
  );
  for (const d of docs) {
    if (!d) continue;
    for (const m of d.doc.methods ?? []) {
      const method = `${d.plugin}.${m.name}`;
      if (filter.allows(method)) found.push({ method, plugin: d.plugin, m, doc: d.doc });
    }
  }
  const names = await toolNames(found.map((f) => f.method));
  const byName = new Map<string, ToolEntry>();
  for (const f of found) {
    const name = names.get(f.method)!;
    const output = outputSchema(f.m, f.doc);
    const tool: Tool = {
      name,
      title: f.method,
      description: describe(f.m, f.plugin),
      inputSchema: inputSchema(f.m, f.doc),
      _meta: { [METHOD_META]: f.method },
    };
    if (output) tool.outputSchema = output;
    byName.set(name, {
      tool,
      method: f.method,
      wraps: wrapsResult(f.m, f.doc),
      structured: output !== undefined,
    });
  }
  return { byName, plugins };
}
