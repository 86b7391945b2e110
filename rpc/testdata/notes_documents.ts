/**
 * The documents of the activation examples (PROTOCOL section 10), shared by
 * the unit tests of the check (`rpc/activation_check_test.ts`) and the
 * end-to-end ones (`tests/activation_test.ts`): `notes` with
 * `add(<param>)`, and an importer of `notes.add(<param>)` with an example
 * call that adds "milk".
 *
 * @module
 */

import type { MethodObject, OpenRpcDocument } from "../openrpc.ts";

/** The result of `notes.add`. */
export const Added = {
  type: "object",
  description: "The result of `add`.",
  properties: {
    count: {
      type: "integer",
      format: "uint",
      minimum: 0,
      description: "The number of notes after the call, with the new note.",
    },
  },
  required: ["count"],
};

/** `notes.add`, its one param named `param`. */
export function addMethod(param: string): MethodObject {
  return {
    name: "add",
    summary: "Add a note at the end of the list.",
    paramStructure: "by-name",
    params: [{
      name: param,
      required: true,
      description: "The text of the new note.",
      schema: { type: "string" },
    }],
    result: { name: "added", schema: { $ref: "#/components/schemas/Added" } },
  };
}

/** `notes.add` as an importer keeps it: with the example call that adds "milk". */
export function importedAdd(param: string): MethodObject {
  return {
    ...addMethod(param),
    examples: [{
      name: "milk",
      params: [{ name: param, value: "milk" }],
      result: { name: "added", value: { count: 1 } },
    }],
  };
}

/** An OpenRPC 1.2.6 document of `title` with these methods and `extra` fields. */
export function doc(
  title: string,
  methods: MethodObject[],
  extra: Partial<OpenRpcDocument> = {},
  version = "0.1.0",
): OpenRpcDocument {
  return { openrpc: "1.2.6", info: { title, version }, methods, ...extra };
}

/**
 * Why `notes` with `add(body)` is not activated while `agent` imports
 * `add(text)`: the message of the spec's example.
 */
export const RENAME_REFUSAL = [
  "notes was not activated: 1 consumer breaks.",
  "- agent imports notes.add(text: string) -> Added.",
  '  The new notes.add has no param "text". It requires "body": string.',
  '  Counterexample: {"text": "milk"} is not valid for the new params.',
  "  Update agent first, or activate both together.",
].join("\n");
