import { strict as assert } from "node:assert";
import { ERRNO } from "./errno.ts";
import { FDFLAGS, FILETYPE, FSTFLAGS, OFLAGS, RIGHTS, SYMLINK_FOLLOW } from "./values.ts";
import { LAYOUT } from "./layout.ts";
import { EVENTTYPE, SUBSCRIPTION_CLOCK_ABSTIME } from "./poll.ts";

/** An s-expression of the witx text: an atom or a list. */
type Sexp = string | Sexp[];

/** The top-level forms of witx `text` (comments dropped). */
function parseWitx(text: string): Sexp[] {
  const tokens = text.replace(/;[^\n]*/g, "").match(/\(|\)|"[^"]*"|[^\s()]+/g) ?? [];
  let i = 0;
  const read = (): Sexp => {
    const t = tokens[i++];
    if (t !== "(") return t;
    const list: Sexp[] = [];
    while (tokens[i] !== ")") list.push(read());
    i++;
    return list;
  };
  const out: Sexp[] = [];
  while (i < tokens.length) out.push(read());
  return out;
}

const witx = parseWitx(
  await Deno.readTextFile(new URL("./testdata/typenames.witx", import.meta.url)),
);
const types = new Map<string, Sexp>();
for (const form of witx) {
  if (Array.isArray(form) && form[0] === "typename") types.set(form[1] as string, form[2]);
}

/** The member names of the enum or flags `$name`, in order (their values or bit numbers). */
function members(name: string): string[] {
  const t = types.get(`$${name}`) as Sexp[];
  assert.ok(t && (t[0] === "enum" || t[0] === "flags"), `${name} is an enum or flags`);
  return t.filter((m) => typeof m === "string" && m.startsWith("$")).map((m) =>
    (m as string).slice(1)
  );
}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A type's layout: size, alignment and its named offsets (records and unions flattened). */
interface Layout {
  size: number;
  align: number;
  /** Each field name reachable inside, with its offset (the first found wins); a union's "tag". */
  offsets: Map<string, number>;
}

const PRIM: Record<string, number> = { u8: 1, u16: 2, u32: 4, u64: 8, s64: 8, s32: 4 };
const up = (n: number, a: number) => Math.ceil(n / a) * a;

function layoutOf(t: Sexp): Layout {
  if (typeof t === "string") {
    if (t in PRIM) return { size: PRIM[t], align: PRIM[t], offsets: new Map() };
    return layoutOf(types.get(t)!);
  }
  const repr = (form: Sexp[]) => {
    const ann = form.find((x) => Array.isArray(x) && x[0] === "@witx") as Sexp[] | undefined;
    return ann ? ann[2] : "u32";
  };
  switch (t[0]) {
    case "enum":
    case "flags":
      return layoutOf(repr(t));
    case "handle":
      return layoutOf("u32");
    case "@witx": // a pointer
      return layoutOf("u32");
    case "record": {
      let at = 0, align = 1;
      const offsets = new Map<string, number>();
      for (const f of t.slice(1) as Sexp[][]) {
        const name = (f[1] as string).slice(1);
        const l = layoutOf(f[2]);
        at = up(at, l.align);
        if (!offsets.has(name)) offsets.set(name, at);
        for (const [k, v] of l.offsets) if (!offsets.has(k)) offsets.set(k, at + v);
        at += l.size;
        align = Math.max(align, l.align);
      }
      return { size: up(at, align), align, offsets };
    }
    case "union": {
      const tag = layoutOf(repr(t));
      const cases = t.slice(1).filter((c) => typeof c === "string").map((c) => layoutOf(c));
      const align = Math.max(tag.align, ...cases.map((c) => c.align));
      const payload = up(tag.size, Math.max(...cases.map((c) => c.align)));
      const offsets = new Map<string, number>([["tag", 0]]);
      for (const c of cases) {
        for (const [k, v] of c.offsets) if (!offsets.has(k)) offsets.set(k, payload + v);
      }
      const size = up(payload + Math.max(...cases.map((c) => c.size)), align);
      return { size, align, offsets };
    }
  }
  throw new Error(`witx: no layout for ${JSON.stringify(t)}`);
}

Deno.test("every errno the binding answers with has its witx value", () => {
  const errno = members("errno");
  for (const [name, value] of Object.entries(ERRNO)) {
    assert.equal(value, errno.indexOf(name), `errno ${name}`);
  }
});

Deno.test("rights, fdflags, oflags, fstflags, lookupflags and subclockflags bits are the witx's", () => {
  const rights = members("rights");
  for (const [name, bit] of Object.entries(RIGHTS)) {
    if (name === "all") assert.equal(bit, (1n << BigInt(rights.length)) - 1n, "all rights");
    else assert.equal(bit, 1n << BigInt(rights.indexOf(snake(name))), `right ${name}`);
  }
  const bits = (flags: Record<string, number>, witxName: string) => {
    const names = members(witxName);
    for (const [name, bit] of Object.entries(flags)) {
      assert.equal(bit, 1 << names.indexOf(snake(name)), `${witxName} ${name}`);
    }
  };
  bits(FDFLAGS, "fdflags");
  bits(OFLAGS, "oflags");
  bits(FSTFLAGS, "fstflags");
  bits({ symlinkFollow: SYMLINK_FOLLOW }, "lookupflags");
  bits({ subscriptionClockAbstime: SUBSCRIPTION_CLOCK_ABSTIME }, "subclockflags");
});

Deno.test("filetype and eventtype values are the witx's", () => {
  const filetype = members("filetype");
  for (const [name, value] of Object.entries(FILETYPE)) {
    assert.equal(value, filetype.indexOf(snake(name)), `filetype ${name}`);
  }
  const eventtype = members("eventtype");
  for (const [name, value] of Object.entries(EVENTTYPE)) {
    assert.equal(value, eventtype.indexOf(name), `eventtype ${name}`);
  }
});

Deno.test("the records the binding reads and writes have the witx's sizes, alignments and offsets", () => {
  for (const [name, layout] of Object.entries(LAYOUT)) {
    const want = layoutOf(`$${name}`);
    assert.equal(layout.size, want.size, `${name} size`);
    assert.equal(layout.align, want.align, `${name} alignment`);
    for (const [field, offset] of Object.entries(layout.fields)) {
      assert.equal(offset, want.offsets.get(field), `${name}.${field} offset`);
    }
  }
});
