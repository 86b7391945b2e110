/**
 * `methods <plugin>`: a plugin's `rpc.discover` document as text, each
 * method with its params (types, required or optional), its result and its
 * docs.
 *
 * @module
 */

import type { ContentDescriptor, MethodObject, OpenRpcDocument } from "../../rpc/openrpc.ts";
import { schemaDefs } from "../../rpc/openrpc.ts";
import { describe } from "../../rpc/schema_describe.ts";
import { rootNode } from "../../rpc/schema_scope.ts";

/** The method names of a document (what `notes.<Tab>` completes). */
export function methodNames(doc: unknown): string[] {
  const methods = (doc as Partial<OpenRpcDocument> | null)?.methods;
  return Array.isArray(methods) ? methods.map((m) => String(m?.name)) : [];
}

/** The text of `methods <plugin>`: one block per method. */
export function methodsText(plugin: string, doc: OpenRpcDocument): string[] {
  const defs = schemaDefs(doc);
  const type = (d: ContentDescriptor) => {
    try {
      return describe(rootNode(d.schema, defs));
    } catch {
      return "any value";
    }
  };
  const lines: string[] = [];
  const about = firstLine(doc.info?.description);
  if (about) lines.push(`${plugin}: ${about}`);
  for (const m of doc.methods ?? []) {
    const params = (m.params ?? []).map((p) => `${p.name}${p.required ? "" : "?"}: ${type(p)}`);
    const result = m.result ? ` -> ${type(m.result)}` : "";
    lines.push(`${plugin}.${m.name} {${params.join(", ")}}${result}`);
    for (const doc of docLines(m)) lines.push(`    ${doc}`);
    for (const p of m.params ?? []) {
      const text = firstLine(p.description ?? p.summary);
      lines.push(
        `    ${p.name}: ${type(p)}, ${p.required ? "required" : "optional"}${
          text ? `. ${text}` : ""
        }`,
      );
    }
  }
  if ((doc.methods ?? []).length === 0) lines.push(`${plugin} has no methods`);
  return lines;
}

function firstLine(text: string | undefined): string {
  return (text ?? "").trim().split("\n")[0].trim();
}

function docLines(m: MethodObject): string[] {
  const out: string[] = [];
  if (m.summary) out.push(m.summary.trim());
  if (m.description) out.push(...m.description.trim().split("\n").map((l) => l.trim()));
  return out.filter((l, i) => l !== "" || i > 0);
}
