/**
 * A reader for the subset of WIT that WASI 0.2's interfaces use (`interface`,
 * `use`, `type`, `record`, `variant`, `enum`, `flags`, `resource` with
 * constructors, methods and static functions, free functions): from the
 * text in `wasi_wit.ts` and `http_wit.ts` to each importable function's
 * signature by its import name (`[method]input-stream.read`, `poll`,
 * `[resource-drop]pollable`), with every type resolved. Pure data: the core
 * reads the names to choose the engine, the sandbox the types to bind them.
 *
 * @module
 */

import { WASI_WIT } from "./wasi_wit.ts";
import { HTTP_WIT } from "./http_wit.ts";

/** A resolved WIT type. */
export type WitType =
  | { k: "u8" | "u16" | "u32" | "u64" | "s8" | "s16" | "s32" | "s64" | "bool" | "char" | "string" }
  | { k: "f32" | "f64" }
  | { k: "list" | "option"; of: WitType }
  | { k: "result"; ok?: WitType; err?: WitType }
  | { k: "tuple"; of: WitType[] }
  | { k: "record"; fields: [name: string, type: WitType][] }
  | { k: "variant"; cases: [name: string, type: WitType | undefined][] }
  | { k: "enum" | "flags"; names: string[] }
  | { k: "own" | "borrow"; resource: string };

/** What a function of an interface is, for the binding. */
export interface WitFunction {
  kind: "func" | "method" | "static" | "constructor" | "drop";
  /** Its resource (methods, statics, constructors, drops). */
  resource?: string;
  /** The member's name as jco's bindings spell it (camelCase; the class for a resource). */
  member: string;
  /** Its resource's class as jco's bindings spell it (PascalCase), when it has a resource. */
  className?: string;
  /** Parameter types, `self` first for a method. */
  params: WitType[];
  result?: WitType;
}

/** A type as written, before names are resolved. */
type Raw =
  | { k: "ref"; name: string }
  | { k: "list" | "option"; of: Raw }
  | { k: "result"; ok?: Raw; err?: Raw }
  | { k: "tuple"; of: Raw[] }
  | { k: "own" | "borrow"; of: string }
  | { k: "record"; fields: [string, Raw][] }
  | { k: "variant"; cases: [string, Raw | undefined][] }
  | { k: "enum" | "flags"; names: string[] }
  | { k: "resource" };

/** One interface: its named types (or where they come from) and its functions. */
interface Scope {
  types: Map<string, Raw | { use: string; name: string }>;
  funcs: Map<string, { kind: WitFunction["kind"]; resource?: string; params: Raw[]; result?: Raw }>;
}

const PRIMITIVES = new Set([
  "u8",
  "u16",
  "u32",
  "u64",
  "s8",
  "s16",
  "s32",
  "s64",
  "bool",
  "char",
  "string",
  "f32",
  "f64",
]);

/** kebab-case to camelCase, as jco names members and record fields. */
export function camel(name: string): string {
  return name.replace(/-([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** kebab-case to PascalCase, as jco names resource classes. */
function pascal(name: string): string {
  const c = camel(name);
  return c[0].toUpperCase() + c.slice(1);
}

/** Reads one package's text into `scopes`, keyed `wasi:io/streams`. */
function readPackage(pkg: string, text: string, scopes: Map<string, Scope>): void {
  const tokens = text.match(/->|use [^;]*;|[{}()<>,;:=]|[%A-Za-z_][A-Za-z0-9_-]*/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const expect = (t: string) => {
    if (tokens[i++] !== t) throw new Error(`WIT: expected ${t} near ${tokens.slice(i - 3, i + 3)}`);
  };
  const ident = () => next().replace(/^%/, "");
  const type = (): Raw => {
    const name = ident();
    if (name === "list" || name === "option") {
      expect("<");
      const of = type();
      expect(">");
      return { k: name, of };
    }
    if (name === "borrow" || name === "own") {
      expect("<");
      const of = ident();
      expect(">");
      return { k: name, of };
    }
    if (name === "tuple") {
      expect("<");
      const of = [type()];
      while (peek() === ",") next(), of.push(type());
      expect(">");
      return { k: "tuple", of };
    }
    if (name === "result") {
      if (peek() !== "<") return { k: "result" };
      next();
      const ok = peek() === "_" ? (next(), undefined) : type();
      const err = peek() === "," ? (next(), type()) : undefined;
      expect(">");
      return { k: "result", ok, err };
    }
    return { k: "ref", name };
  };
  /** A `(a: T, b: U)` list, after the `(`. */
  const params = (): Raw[] => {
    const out: Raw[] = [];
    while (peek() !== ")") {
      ident();
      expect(":");
      out.push(type());
      if (peek() === ",") next();
    }
    next();
    return out;
  };
  /** A body of names with optional payloads, after the `{`. */
  const list = <T>(item: (name: string) => T): T[] => {
    const out: T[] = [];
    while (peek() !== "}") {
      out.push(item(ident()));
      if (peek() === ",") next();
    }
    next();
    return out;
  };
  while (i < tokens.length) {
    expect("interface");
    const scope: Scope = { types: new Map(), funcs: new Map() };
    scopes.set(`${pkg}/${ident()}`, scope);
    expect("{");
    while (peek() !== "}") {
      const t = next();
      if (t.startsWith("use ")) {
        const m = t.match(/^use ([^{]+)\.\{([^}]*)\};$/)!;
        const from = m[1].includes(":") ? m[1].replace(/@.*/, "") : `${pkg}/${m[1]}`;
        for (const item of m[2].split(",").map((s) => s.trim()).filter(Boolean)) {
          const [name, as] = item.split(/\s+as\s+/);
          scope.types.set(as ?? name, { use: from, name });
        }
      } else if (t === "type") {
        const name = ident();
        expect("=");
        scope.types.set(name, type());
        expect(";");
      } else if (t === "record") {
        const name = ident();
        expect("{");
        scope.types.set(name, {
          k: "record",
          fields: list((f) => (expect(":"), [f, type()] as [string, Raw])),
        });
      } else if (t === "variant") {
        const name = ident();
        expect("{");
        const cases = list((c) => {
          if (peek() !== "(") return [c, undefined] as [string, Raw | undefined];
          next();
          const of = type();
          expect(")");
          return [c, of] as [string, Raw | undefined];
        });
        scope.types.set(name, { k: "variant", cases });
      } else if (t === "enum" || t === "flags") {
        const name = ident();
        expect("{");
        scope.types.set(name, { k: t, names: list((n) => n) });
      } else if (t === "resource") {
        const name = ident();
        scope.types.set(name, { k: "resource" });
        scope.funcs.set(`[resource-drop]${name}`, {
          kind: "drop",
          resource: name,
          params: [{ k: "own", of: name }],
        });
        if (next() === ";") continue;
        while (peek() !== "}") {
          const member = ident();
          if (member === "constructor") {
            expect("(");
            scope.funcs.set(`[constructor]${name}`, {
              kind: "constructor",
              resource: name,
              params: params(),
              result: { k: "own", of: name },
            });
          } else {
            expect(":");
            const isStatic = peek() === "static" && (next(), true);
            expect("func");
            expect("(");
            const ps = params();
            const result = peek() === "->" ? (next(), type()) : undefined;
            const kind = isStatic ? "static" : "method";
            const self: Raw[] = isStatic ? [] : [{ k: "borrow", of: name }];
            scope.funcs.set(`[${kind}]${name}.${member}`, {
              kind,
              resource: name,
              params: [...self, ...ps],
              result,
            });
          }
          expect(";");
        }
        next();
      } else {
        const name = t.replace(/^%/, "");
        expect(":");
        expect("func");
        expect("(");
        const ps = params();
        const result = peek() === "->" ? (next(), type()) : undefined;
        expect(";");
        scope.funcs.set(name, { kind: "func", params: ps, result });
      }
    }
    next();
  }
}

/** Resolves the names in `raw`, read in `scope`. */
function resolve(raw: Raw, scope: string, scopes: Map<string, Scope>): WitType {
  const r = (t: Raw): WitType => resolve(t, scope, scopes);
  switch (raw.k) {
    case "ref": {
      if (PRIMITIVES.has(raw.name)) return { k: raw.name } as WitType;
      const [where, def] = lookup(scope, raw.name, scopes);
      if (def.k === "resource") return { k: "own", resource: raw.name };
      return resolve(def, where, scopes);
    }
    case "list":
    case "option":
      return { k: raw.k, of: r(raw.of) };
    case "result":
      return { k: "result", ok: raw.ok && r(raw.ok), err: raw.err && r(raw.err) };
    case "tuple":
      return { k: "tuple", of: raw.of.map(r) };
    case "own":
    case "borrow":
      return { k: raw.k, resource: lookupResource(scope, raw.of, scopes) };
    case "record":
      return { k: "record", fields: raw.fields.map(([n, t]) => [camel(n), r(t)]) };
    case "variant":
      return { k: "variant", cases: raw.cases.map(([n, t]) => [n, t && r(t)]) };
    case "enum":
    case "flags":
      return raw;
    case "resource":
      throw new Error("WIT: a resource is not a value type");
  }
}

/** The definition of `name` as seen from `scope`, following `use`s, and where it is. */
function lookup(scope: string, name: string, scopes: Map<string, Scope>): [string, Raw] {
  for (;;) {
    const def = scopes.get(scope)?.types.get(name);
    if (!def) throw new Error(`WIT: ${name} is not defined in ${scope}`);
    if (!("use" in def)) return [scope, def];
    [scope, name] = [def.use, def.name];
  }
}

/** The name a resource has where it is defined (`io-error` is `error`). */
function lookupResource(scope: string, name: string, scopes: Map<string, Scope>): string {
  for (;;) {
    const def = scopes.get(scope)?.types.get(name);
    if (!def || !("use" in def)) return name;
    [scope, name] = [def.use, def.name];
  }
}

let cache: Map<string, Map<string, WitFunction>> | null = null;

/**
 * Every function the lean path can bind: interface (`wasi:io/streams`, no
 * version) → import name → signature. Read once.
 */
export function witFunctions(): Map<string, Map<string, WitFunction>> {
  if (cache) return cache;
  const scopes = new Map<string, Scope>();
  for (const [pkg, text] of [...WASI_WIT, ...HTTP_WIT]) readPackage(pkg, text, scopes);
  cache = new Map();
  for (const [name, scope] of scopes) {
    const funcs = new Map<string, WitFunction>();
    for (const [importName, f] of scope.funcs) {
      const member = f.kind === "func"
        ? camel(importName)
        : f.kind === "method"
        ? camel(importName.slice(importName.indexOf(".") + 1))
        : f.kind === "static"
        ? camel(importName.slice(importName.indexOf(".") + 1))
        : pascal(f.resource!);
      funcs.set(importName, {
        kind: f.kind,
        resource: f.resource && lookupResource(name, f.resource, scopes),
        member,
        className: f.resource && pascal(f.resource),
        params: f.params.map((p) => resolve(p, name, scopes)),
        result: f.result && resolve(f.result, name, scopes),
      });
    }
    cache.set(name, funcs);
  }
  return cache;
}

/**
 * The interface (`wasi:io/streams`) of an import module name
 * (`wasi:io/streams@0.2.4`) when it is WASI 0.2; null otherwise.
 */
export function interfaceOf(module: string): string | null {
  const m = module.match(/^(wasi:[a-z-]+\/[a-z-]+)@0\.2\.\d+$/);
  return m ? m[1] : null;
}

/** True when the lean path binds `module`.`name` (a WASI 0.2 function). */
export function isBound(module: string, name: string): boolean {
  const iface = interfaceOf(module);
  return iface !== null && (witFunctions().get(iface)?.has(name) ?? false);
}
