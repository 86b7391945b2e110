/**
 * The world as MCP resources, so an agent outside learns it the way a
 * plugin does: `/proc/core/PROTOCOL.md` (the contract), `graph.json`
 * (plugins, imports, checks), and each plugin's `discover.json` (its
 * interface), `client.rs` (the Rust client `import!` generates) and
 * `client.ts` (the typed TypeScript client). A
 * resource's URI is `sausage://` and its path as a process sees it:
 * `sausage:///proc/core/plugins/notes/discover.json`.
 *
 * @module
 */

// @ts-types="@modelcontextprotocol/sdk/types"
import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js";
import type { WorldLink } from "./world_link.ts";

/** The URI of a path of the world. */
function resourceUri(path: string): string {
  return `sausage://${path}`;
}

const MIME: Record<string, string> = {
  ".md": "text/markdown",
  ".json": "application/json",
  ".rs": "text/x-rust",
};

function mimeOf(path: string): string {
  return MIME[path.slice(path.lastIndexOf("."))] ?? "text/plain";
}

/** The resources of a world with these plugins. */
export function listResources(plugins: string[]): Resource[] {
  const out: Resource[] = [
    {
      uri: resourceUri("/proc/core/PROTOCOL.md"),
      name: "PROTOCOL.md",
      description: "The Sausage protocol: the contract between the core and every plugin.",
      mimeType: "text/markdown",
    },
    {
      uri: resourceUri("/proc/core/graph.json"),
      name: "graph.json",
      description: "The plugins, their methods and imports, and whether each import holds.",
      mimeType: "application/json",
    },
  ];
  for (const p of plugins) {
    out.push({
      uri: resourceUri(`/proc/core/plugins/${p}/discover.json`),
      name: `${p}/discover.json`,
      description: `The rpc.discover document (OpenRPC) of the plugin ${p}.`,
      mimeType: "application/json",
    }, {
      uri: resourceUri(`/proc/core/plugins/${p}/client.rs`),
      name: `${p}/client.rs`,
      description: `The Rust client that import!("${p}") generates for the plugin ${p}.`,
      mimeType: "text/x-rust",
    }, {
      uri: resourceUri(`/proc/core/plugins/${p}/client.ts`),
      name: `${p}/client.ts`,
      description:
        `The typed TypeScript client of the plugin ${p} (imports/${p}.ts of a consumer).`,
      mimeType: "text/typescript",
    });
  }
  return out;
}

/** The path a resource URI names, or null when it is not one of the world's resources. */
function resourcePath(uri: string): string | null {
  if (!uri.startsWith("sausage:///")) return null;
  const path = uri.slice("sausage://".length);
  if (path === "/proc/core/PROTOCOL.md" || path === "/proc/core/graph.json") return path;
  return /^\/proc\/core\/plugins\/[a-z0-9_-]+\/(discover\.json|client\.rs|client\.ts)$/.test(path)
    ? path
    : null;
}

/** Reads one resource; throws when the URI names none. */
export async function readResource(link: WorldLink, uri: string): Promise<ReadResourceResult> {
  const path = resourcePath(uri);
  if (path === null) {
    throw new Error(
      `${uri} is not a resource of this world (see resources/list: sausage:///proc/core/...)`,
    );
  }
  const text = new TextDecoder().decode(await link.read(path));
  return { contents: [{ uri, mimeType: mimeOf(path), text }] };
}
