/**
 * The `rpc.discover` document of a TypeScript plugin, from its types: every
 * function `plugin.ts` exports is a method; its doc comment is the method's
 * summary (first paragraph) and description (the rest); the properties of its
 * one parameter's type are the params (by name; optional ones not required;
 * their doc comments are the params' descriptions); its return type is the
 * result. Types become JSON Schema: `string`, `number`, `integer` (the SDK's
 * alias of `number`), `boolean`, `null`, literals and unions of literals
 * (`enum`), arrays, objects and interfaces (with their properties' docs),
 * other unions (`anyOf`). The TypeScript compiler checks the program first:
 * a type error is a build error.
 *
 * @module
 */

import ts from "typescript";
import type { OpenRpcDocument } from "../../rpc/openrpc.ts";
import { TsBuildError } from "./ts_build_error.ts";

export { TsBuildError };

/** The SDK's declarations (`declare module "sausage"`), part of every plugin's program. */
export const SDK_DECLARATIONS = decodeURIComponent(
  new URL("./sausage.d.ts", import.meta.url).pathname,
);

type Schema = Record<string, unknown>;

/** The documentation of a symbol, as plain text. */
function docOf(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

/**
 * The schema of a declaration's type, reading the type as written where it
 * says `integer` (TypeScript keeps no alias of a primitive on the type).
 */
function declaredSchema(
  decl: ts.Declaration | undefined,
  type: ts.Type,
  checker: ts.TypeChecker,
  seen: Set<ts.Type>,
): Schema {
  const node = decl && (decl as { type?: ts.TypeNode }).type;
  const isInteger = (n: ts.TypeNode | undefined) =>
    !!n && ts.isTypeReferenceNode(n) && n.typeName.getText() === "integer";
  if (isInteger(node)) return { type: "integer" };
  if (node && ts.isArrayTypeNode(node) && isInteger(node.elementType)) {
    return { type: "array", items: { type: "integer" } };
  }
  return schemaOf(type, checker, seen);
}

/** The JSON Schema keywords a property's doc tags give. */
const NUMBER_TAGS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
];
const TEXT_TAGS = ["pattern", "format"];

/**
 * What a property's JSDoc tags bound (`@minimum 0`, `@maximum 100`,
 * `@maxLength 64`, `@pattern ^[a-z]+$`, `@format email`), as schema keywords.
 */
function boundsOf(symbol: ts.Symbol): Schema {
  const out: Schema = {};
  for (const tag of symbol.getJsDocTags()) {
    const text = ts.displayPartsToString(tag.text).trim();
    if (NUMBER_TAGS.includes(tag.name) && text !== "" && Number.isFinite(Number(text))) {
      out[tag.name] = Number(text);
    } else if (TEXT_TAGS.includes(tag.name) && text) out[tag.name] = text;
  }
  return out;
}

/** The JSON Schema of a type. `seen` stops recursive types (they become `{}`). */
function schemaOf(type: ts.Type, checker: ts.TypeChecker, seen: Set<ts.Type>): Schema {
  if (type.aliasSymbol?.name === "integer") return { type: "integer" };
  const f = type.flags;
  if (f & ts.TypeFlags.Any || f & ts.TypeFlags.Unknown) return {};
  if (f & ts.TypeFlags.StringLiteral) {
    return { type: "string", enum: [(type as ts.StringLiteralType).value] };
  }
  if (f & ts.TypeFlags.NumberLiteral) {
    return { type: "number", enum: [(type as ts.NumberLiteralType).value] };
  }
  if (f & ts.TypeFlags.BooleanLiteral) {
    return { type: "boolean", enum: [checker.typeToString(type) === "true"] };
  }
  if (f & ts.TypeFlags.String) return { type: "string" };
  if (f & ts.TypeFlags.Number) return { type: "number" };
  if (f & ts.TypeFlags.Boolean) return { type: "boolean" };
  if (f & ts.TypeFlags.Null || f & ts.TypeFlags.Void || f & ts.TypeFlags.Undefined) {
    return { type: "null" };
  }
  if (type.isUnion()) {
    const parts = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
    if (parts.every((t) => t.flags & ts.TypeFlags.BooleanLiteral)) return { type: "boolean" };
    if (parts.length === 1) return schemaOf(parts[0], checker, seen);
    if (parts.every((t) => t.isStringLiteral())) {
      return { type: "string", enum: parts.map((t) => (t as ts.StringLiteralType).value) };
    }
    if (parts.every((t) => t.isNumberLiteral())) {
      return { type: "number", enum: parts.map((t) => (t as ts.NumberLiteralType).value) };
    }
    return { anyOf: parts.map((t) => schemaOf(t, checker, seen)) };
  }
  if (checker.isArrayType(type)) {
    const [item] = checker.getTypeArguments(type as ts.TypeReference);
    return { type: "array", items: item ? schemaOf(item, checker, seen) : {} };
  }
  if (f & ts.TypeFlags.Object) {
    if (seen.has(type)) return {};
    seen.add(type);
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    for (const p of checker.getPropertiesOfType(type)) {
      const decl = p.valueDeclaration ?? p.declarations?.[0];
      if (!decl) continue;
      const s = declaredSchema(decl, checker.getTypeOfSymbolAtLocation(p, decl), checker, seen);
      const doc = docOf(p, checker);
      const bounds = boundsOf(p);
      properties[p.name] = doc ? { ...s, ...bounds, description: doc } : { ...s, ...bounds };
      if (!(p.flags & ts.SymbolFlags.Optional)) required.push(p.name);
    }
    seen.delete(type);
    const index = checker.getIndexInfosOfType(type)[0];
    return {
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      ...(index ? { additionalProperties: schemaOf(index.type, checker, seen) } : {}),
    };
  }
  return {};
}

/** Where a diagnostic is: `plugin.ts:3:7`. */
function where(d: ts.Diagnostic, root: string): string {
  if (!d.file || d.start === undefined) return "";
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${d.file.fileName.replace(`${root}/`, "")}:${line + 1}:${character + 1}: `;
}

/** The library's and the SDK's declarations, parsed (by file and language version). */
const FIXED_FILES = new Map<string, ts.SourceFile>();

/**
 * A compiler host that reads only the plugin's source folder (`root`, also as
 * its real path), the SDK's declarations and the compiler's own library: an
 * import that leads elsewhere (`../../../x`, a link out of the folder) is not
 * found, so a build the host makes for a guest (the agent's `cargo.build`)
 * reads nothing of the machine's files, as bubblewrap keeps a crate's build
 * from them.
 */
function confinedHost(root: string, options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options);
  const real = (p: string) => {
    try {
      return Deno.realPathSync(p);
    } catch {
      return p;
    }
  };
  const folders = [root, real(root)];
  const lib = host.getDefaultLibLocation?.() ?? "";
  const allowed = (file: string) => {
    if (file === SDK_DECLARATIONS || (lib && file.startsWith(`${lib}/`))) return true;
    const inside = (f: string) => folders.some((d) => f.startsWith(`${d}/`));
    return inside(file) && inside(real(file));
  };
  const { fileExists, readFile, directoryExists, getSourceFile } = host;
  // The compiler's library and the SDK's declarations never change in a
  // process: parsed once, not for each of a build's programs.
  host.getSourceFile = (file, language, onError, create) => {
    const fixed = file === SDK_DECLARATIONS || (lib && file.startsWith(`${lib}/`));
    if (!fixed) return getSourceFile.call(host, file, language, onError, create);
    const key = `${file}\0${JSON.stringify(language)}`;
    let parsed = FIXED_FILES.get(key);
    if (!parsed) {
      parsed = getSourceFile.call(host, file, language, onError, create);
      if (parsed) FIXED_FILES.set(key, parsed);
    }
    return parsed;
  };
  host.fileExists = (f) => allowed(f) && fileExists.call(host, f);
  host.readFile = (f) => allowed(f) ? readFile.call(host, f) : undefined;
  host.directoryExists = (d) =>
    folders.some((f) => d === f || d.startsWith(`${f}/`)) &&
    (directoryExists?.call(host, d) ?? true);
  return host;
}

/**
 * The program of `roots` (files of the plugin at `root`, and what they
 * import) with the SDK's declarations, type-checked against ES5; throws a
 * {@linkcode TsBuildError} with every message when it does not check.
 */
export function checkedProgram(root: string, roots: string[], name: string): ts.Program {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES5,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ["lib.es5.d.ts"],
    types: [],
    skipLibCheck: true,
  };
  const program = ts.createProgram(
    [...roots, SDK_DECLARATIONS],
    options,
    confinedHost(root, options),
  );
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length) {
    const output = diagnostics.map((d) =>
      where(d, root) + ts.flattenDiagnosticMessageText(d.messageText, "\n")
    ).join("\n");
    throw new TsBuildError(
      `${name} was not built: ${diagnostics.length} TypeScript ${
        diagnostics.length === 1 ? "error" : "errors"
      }`,
      output,
    );
  }
  return program;
}

/**
 * Type-checks the plugin at `root` (its `plugin.ts` and what it imports) and
 * makes its document; `name` and `version` are its `info`. Throws a
 * {@linkcode TsBuildError} with every message when it does not check.
 */
export function tsDocument(root: string, name: string, version: string): OpenRpcDocument {
  const main = `${root}/plugin.ts`;
  const program = checkedProgram(root, [main], name);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(main)!;
  const moduleSymbol = checker.getSymbolAtLocation(file);
  const problems: string[] = [];
  const methods = [];
  for (const symbol of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
    const decl = symbol.valueDeclaration;
    if (!decl || !ts.isFunctionDeclaration(decl)) continue;
    const signature = checker.getSignatureFromDeclaration(decl)!;
    const doc = docOf(symbol, checker);
    if (!doc) problems.push(`plugin.ts: ${symbol.name} needs a doc comment (it is a method)`);
    const [summary, ...rest] = doc.split(/\n\s*\n/);
    const params = [];
    if (signature.parameters.length > 1) {
      problems.push(
        `plugin.ts: ${symbol.name} takes one object of params, not ${signature.parameters.length} arguments`,
      );
    }
    const first = signature.parameters[0];
    if (first) {
      const type = checker.getTypeOfSymbolAtLocation(first, decl);
      for (const p of checker.getPropertiesOfType(type)) {
        const pd = p.valueDeclaration ?? p.declarations?.[0];
        if (!pd) continue;
        const description = docOf(p, checker);
        params.push({
          name: p.name,
          required: !(p.flags & ts.SymbolFlags.Optional),
          ...(description ? { description } : {}),
          schema: {
            ...declaredSchema(pd, checker.getTypeOfSymbolAtLocation(p, pd), checker, new Set()),
            ...boundsOf(p),
          },
        });
      }
    }
    const returned = decl.type && ts.isTypeReferenceNode(decl.type) &&
        decl.type.typeName.getText() === "integer"
      ? { type: "integer" }
      : schemaOf(signature.getReturnType(), checker, new Set());
    methods.push({
      name: symbol.name,
      ...(summary ? { summary: summary.replace(/\s+/g, " ").trim() } : {}),
      ...(rest.length ? { description: rest.join("\n\n").trim() } : {}),
      paramStructure: "by-name",
      params,
      result: { name: "result", schema: returned },
    });
  }
  if (problems.length) {
    throw new TsBuildError(`${name} was not built: its methods need fixing`, problems.join("\n"));
  }
  const imports = importedDocuments(root);
  return {
    openrpc: "1.2.6",
    info: { title: name, version },
    methods,
    ...(Object.keys(imports).length ? { "x-sausage-imports": imports } : {}),
  } as OpenRpcDocument;
}

/**
 * What the plugin imports (`x-sausage-imports`): each `imports/<provider>.json`
 * that `sausage import` wrote, its methods and named schemas, so activation
 * checks this plugin against its providers as it checks a Rust consumer.
 */
function importedDocuments(root: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(`${root}/imports`)];
  } catch {
    return out;
  }
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isFile || !e.name.endsWith(".json")) continue;
    const doc = JSON.parse(Deno.readTextFileSync(`${root}/imports/${e.name}`));
    out[e.name.slice(0, -5)] = {
      methods: doc.methods ?? [],
      ...(doc.components ? { components: doc.components } : {}),
    };
  }
  return out;
}
