/**
 * The graph of plugins and imports (section 10.4): the content of
 * `/proc/core/graph.json` and `/proc/core/graph.dot`. Pure functions of the
 * current documents and the hashes of the plugin files: an import is "ok",
 * "broken" (with its problems, e.g. after a copy by hand that skipped the
 * checks), or "missing" (no such plugin).
 *
 * @module
 */

import { endpointsOf, importsOf, type OpenRpcDocument } from "./openrpc.ts";
import { checkImport, importedMethodNames, type ProblemKind } from "./import_check.ts";

/** An endpoint interface of a plugin. */
export interface GraphEndpoint {
  name: string;
  methods: string[];
}

/** A plugin: its file hash, its methods and its endpoints. */
export interface GraphPlugin {
  name: string;
  /** The hash of `plugin.wasm`, or null when it is not known. */
  hash: string | null;
  methods: string[];
  endpoints: GraphEndpoint[];
  /**
   * Why the plugin has no document (so no methods): its `rpc.discover`
   * failed, or answered a document that is not valid. Absent when it has one.
   */
  error?: string;
}

/** One problem of an import, as in the activation error's data. */
export interface GraphProblem {
  endpoint?: string;
  method?: string;
  kind: ProblemKind;
  reason: string;
  counterexample?: unknown;
  cannotProve: boolean;
}

/** An edge: what a consumer imports from a provider, and whether it holds. */
export interface GraphImport {
  consumer: string;
  provider: string;
  /** The imported methods; endpoint methods as `<endpoint>.<method>`. */
  methods: string[];
  status: "ok" | "broken" | "missing";
  problems: GraphProblem[];
}

/** The content of `graph.json`. */
export interface Graph {
  plugins: GraphPlugin[];
  imports: GraphImport[];
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Builds the graph from the documents and the file hashes, both by plugin
 * name, and the reason each plugin without a usable document has none.
 */
export function buildGraph(
  docs: ReadonlyMap<string, OpenRpcDocument>,
  hashes: ReadonlyMap<string, string>,
  errors: ReadonlyMap<string, string> = new Map(),
): Graph {
  const names = [...docs.keys()].sort(byName);
  const plugins = names.map((name): GraphPlugin => {
    const doc = docs.get(name) as OpenRpcDocument;
    return {
      name,
      hash: hashes.get(name) ?? null,
      methods: (doc.methods ?? []).map((m) => m.name),
      endpoints: Object.entries(endpointsOf(doc)).sort(([a], [b]) => byName(a, b))
        .map(([endpoint, iface]) => ({
          name: endpoint,
          methods: (iface.methods ?? []).map((m) => m.name),
        })),
      ...(errors.has(name) ? { error: errors.get(name) } : {}),
    };
  });
  const imports: GraphImport[] = [];
  for (const consumer of names) {
    const entries = Object.entries(importsOf(docs.get(consumer) as OpenRpcDocument))
      .sort(([a], [b]) => byName(a, b));
    for (const [provider, description] of entries) {
      const providerDoc = docs.get(provider);
      const problems = checkImport({ consumer, imports: description, provider, providerDoc })
        .map(({ endpoint, method, kind, reason, cannotProve, ...rest }): GraphProblem => ({
          ...(endpoint !== undefined ? { endpoint } : {}),
          ...(method !== undefined ? { method } : {}),
          kind,
          reason,
          cannotProve,
          ...("counterexample" in rest ? { counterexample: rest.counterexample } : {}),
        }));
      imports.push({
        consumer,
        provider,
        methods: importedMethodNames(description),
        status: !providerDoc ? "missing" : problems.length > 0 ? "broken" : "ok",
        problems,
      });
    }
  }
  return { plugins, imports };
}

/** A Graphviz string literal. */
function quote(s: string): string {
  return `"${s.replaceAll("\\", "\\\\").replaceAll('"', '\\"').replaceAll("\n", "\\n")}"`;
}

/**
 * The graph for Graphviz: a node per plugin (red, "no document", for one
 * without a usable document), a dashed node per missing provider, an edge
 * per import labelled with its methods; broken edges are red and dashed,
 * edges to missing providers dashed.
 */
export function graphToDot(graph: Graph): string {
  const lines = ["digraph sausage {", "  rankdir=LR;", "  node [shape=box];"];
  for (const p of graph.plugins) {
    lines.push(
      p.error === undefined
        ? `  ${quote(p.name)};`
        : `  ${quote(p.name)} [color=red, label=${quote(`${p.name}\n(no document)`)}];`,
    );
  }
  const known = new Set(graph.plugins.map((p) => p.name));
  const missing = [
    ...new Set(graph.imports.filter((i) => !known.has(i.provider)).map((i) => i.provider)),
  ];
  for (const name of missing.sort(byName)) {
    lines.push(`  ${quote(name)} [style=dashed, label=${quote(`${name}\n(missing)`)}];`);
  }
  for (const i of graph.imports) {
    const attrs = [`label=${quote(i.methods.join(", "))}`];
    if (i.status === "broken") attrs.push("color=red", "fontcolor=red", "style=dashed");
    if (i.status === "missing") attrs.push("style=dashed");
    lines.push(`  ${quote(i.consumer)} -> ${quote(i.provider)} [${attrs.join(", ")}];`);
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}
