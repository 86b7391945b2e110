/**
 * `methods <plugin>`: a plugin's `rpc.discover` document as text: its whole
 * description, each method with its params (types, required or optional),
 * its result and its docs, and its endpoint interfaces with theirs.
 *
 * @module
 */

import type { ContentDescriptor, MethodObject, OpenRpcDocument } from "../../rpc/openrpc.ts";
import { endpointsOf, schemaDefs } from "../../rpc/openrpc.ts";
import { describe } from "../../rpc/schema_describe.ts";
import { rootNode } from "../../rpc/schema_scope.ts";

/** The method names of a document (what `notes.<Tab>` completes). */
export function methodNames(doc: unknown): string[] {
  const methods = (doc as Partial<OpenRpcDocument> | null)?.methods;
  return Array.isArray(methods) ? methods.map((m) => String(m?.name)) : [];
}

/**
 * The text of `methods <plugin>`: the plugin's whole description, one block
 * per method of its main interface, then each endpoint interface
 * (`x-sausage-endpoints`, PROTOCOL 10.1) with its methods.
 */
export function methodsText(plugin: string, doc: OpenRpcDocument): string[] {
  const defs = schemaDefs(doc);
  const type = (d: ContentDescriptor) => {
    try {
      return describe(rootNode(d.schema, defs));
    } catch {
      return "any value";
    }
  };
  const block = (prefix: string, indent: string, m: MethodObject): string[] => {
    const params = (m.params ?? []).map((p) => `${p.name}${p.required ? "" : "?"}: ${type(p)}`);
    const result = m.result ? ` -> ${type(m.result)}` : "";
    const lines = [`${indent}${prefix}.${m.name} {${params.join(", ")}}${result}`];
    for (const doc of docLines(m)) lines.push(doc === "" ? "" : `${indent}    ${doc}`);
    for (const p of m.params ?? []) {
      const text = oneLine(p.description ?? p.summary);
      lines.push(
        `${indent}    ${p.name}: ${type(p)}, ${p.required ? "required" : "optional"}${
          text ? `. ${text}` : ""
        }`,
      );
    }
    return lines;
  };
  const lines: string[] = [];
  const about = textLines(doc.info?.description);
  if (about.length) {
    lines.push(`${plugin}: ${about[0]}`);
    for (const l of about.slice(1)) lines.push(l === "" ? "" : `    ${l}`);
  }
  for (const m of doc.methods ?? []) lines.push(...block(plugin, "", m));
  if ((doc.methods ?? []).length === 0) lines.push(`${plugin} has no methods`);
  for (const [name, iface] of Object.entries(endpointsOf(doc))) {
    const what = oneLine((iface as { description?: string }).description);
    lines.push(
      `endpoint ${name}${what ? `: ${what}` : ""} ` +
        `(served by a process of ${plugin} at the path it listens on, e.g. /proc/<pid>/${name})`,
    );
    for (const m of iface.methods ?? []) lines.push(...block(name, "  ", m));
    if ((iface.methods ?? []).length === 0) lines.push(`  ${name} has no methods`);
  }
  return lines;
}

/** The lines of a text, trimmed, without leading or trailing blank lines. */
function textLines(text: string | undefined): string[] {
  const lines = (text ?? "").trim().split("\n").map((l) => l.trim());
  return lines[0] === "" ? [] : lines;
}

/** A whole text on one line (a param's description). */
function oneLine(text: string | undefined): string {
  return textLines(text).filter((l) => l !== "").join(" ");
}

function docLines(m: MethodObject): string[] {
  const out: string[] = [];
  if (m.summary) out.push(...textLines(m.summary));
  if (m.description) out.push(...textLines(m.description));
  return out;
}
