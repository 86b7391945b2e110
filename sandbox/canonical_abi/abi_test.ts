import { strict as assert } from "node:assert";
import { witFunctions } from "./wit.ts";
import { loadOf, MAX_LIST_ITEMS, storeOf } from "./abi.ts";
import { liftOf } from "./lift.ts";
import { flatOf, sizeOf } from "./layout.ts";
import { GuestAbi } from "./guest_abi.ts";

/** A guest of one page whose `cabi_realloc` hands out space from 4096 up. */
function guest(): GuestAbi {
  const memory = new WebAssembly.Memory({ initial: 2 });
  const abi = new GuestAbi(() => memory);
  let next = 4096;
  abi.realloc = (_old, _size, align, size) => {
    next = Math.ceil(next / align) * align;
    const at = next;
    next += size;
    return at;
  };
  return abi;
}

const fn = (iface: string, name: string) => witFunctions().get(iface)!.get(name)!;

Deno.test("WIT: every function of the SDK's imports reads, with jco's member names", () => {
  const read = fn("wasi:io/streams", "[method]input-stream.read");
  assert.equal(read.kind, "method");
  assert.equal(read.member, "read");
  assert.deepEqual(read.params.map((p) => p.k), ["borrow", "u64"]);
  assert.equal(fn("wasi:http/types", "[constructor]outgoing-request").member, "OutgoingRequest");
  assert.equal(fn("wasi:http/types", "[static]fields.from-list").member, "fromList");
  assert.equal(fn("wasi:io/error", "[method]error.to-debug-string").member, "toDebugString");
  assert.equal(fn("wasi:http/types", "[method]incoming-body.stream").member, "stream");
  // `use … {error as io-error}` resolves to the resource where it is defined.
  const code = fn("wasi:http/types", "http-error-code");
  assert.deepEqual(code.params[0], { k: "borrow", resource: "error" });
});

Deno.test("layout: the offsets jco's glue uses for resolve-next-address's result", () => {
  // result<option<ip-address>, error-code>: jco stores the option's case at +2,
  // the address's case at +4, an IPv4 octet at +6 and IPv6 segments from +6.
  const t = fn("wasi:sockets/ip-name-lookup", "[method]resolve-address-stream.resolve-next-address")
    .result!;
  assert.equal(sizeOf(t), 22);
  const abi = guest();
  storeOf(t)(abi, 64, { tag: "ok", val: { tag: "ipv6", val: [1, 2, 3, 4, 5, 6, 7, 0xffff] } });
  const v = abi.view();
  assert.deepEqual([v.getUint8(64), v.getUint8(66), v.getUint8(68)], [0, 1, 1]);
  assert.equal(v.getUint16(70, true), 1);
  assert.equal(v.getUint16(84, true), 0xffff);
  assert.deepEqual(loadOf(t)(abi, 64), {
    tag: "ok",
    val: { tag: "ipv6", val: [1, 2, 3, 4, 5, 6, 7, 0xffff] },
  });
  storeOf(t)(abi, 64, { tag: "err", val: "name-unresolvable" });
  assert.deepEqual(loadOf(t)(abi, 64), { tag: "err", val: "name-unresolvable" });
});

Deno.test("lists and strings go through cabi_realloc; handles are numbers in one table", () => {
  const entries = fn("wasi:http/types", "[method]fields.entries").result!;
  const abi = guest();
  const list = [["a", new Uint8Array([1, 2])], ["bé", new Uint8Array([])]];
  storeOf(entries)(abi, 0, list);
  const v = abi.view();
  assert.equal(v.getUint32(0, true), 4096, "the list's elements were placed by cabi_realloc");
  assert.equal(v.getUint32(4, true), 2);
  assert.deepEqual(loadOf(entries)(abi, 0), list);
  const accept = fn("wasi:sockets/tcp", "[method]tcp-socket.accept").result!;
  const [a, b, c] = [{}, {}, {}];
  storeOf(accept)(abi, 128, { tag: "ok", val: [a, b, c] });
  const handles = [v.getUint32(132, true), v.getUint32(136, true), v.getUint32(140, true)];
  assert.deepEqual(handles, [1, 2, 3]);
  assert.equal(abi.handles.get(2), b);
  assert.equal(abi.handles.take(2), b);
  assert.throws(() => abi.handles.get(2), /invalid resource handle 2/);
  assert.equal(abi.handles.add({}), 2, "a freed handle is used again");
});

Deno.test("flat parameters: a variant's payload is read from its joined slots", () => {
  // start-connect(self, network, ip-socket-address): the address is 1 + 11 flat i32s.
  const f = fn("wasi:sockets/tcp", "[method]tcp-socket.start-connect");
  assert.deepEqual(flatOf({ k: "tuple", of: f.params }).length, 14);
  const abi = guest();
  const [self, net] = [{}, {}];
  abi.handles.add(self);
  abi.handles.add(net);
  const args = [1, 2, 0, 8080, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0];
  const r = { args, i: 0 };
  const vals = f.params.map((p) => liftOf(p)(abi, r));
  assert.equal(vals[0], self);
  assert.equal(vals[1], net);
  assert.deepEqual(vals[2], { tag: "ipv4", val: { port: 8080, address: [127, 0, 0, 1] } });
  assert.equal(r.i, 14);
  // set-connect-timeout(self, option<u64>): an i64 slot.
  const timeout = fn("wasi:http/types", "[method]request-options.set-connect-timeout");
  const t = { args: [1, 1, 5_000_000n], i: 0 };
  assert.deepEqual(timeout.params.map((p) => liftOf(p)(abi, t)), [self, 5_000_000n]);
});

Deno.test("a list or string past the end of memory traps when lifted; no host array is sized by its length", () => {
  const abi = guest();
  const write = fn("wasi:io/streams", "[method]output-stream.write");
  const lift = liftOf(write.params[1]);
  assert.throws(
    () => lift(abi, { args: [131000, 0xFFFFFFF0], i: 0 }),
    /out-of-bounds pointer: 4294967280 bytes at 131000/,
  );
  const list = loadOf({ k: "list", of: { k: "u64" } });
  const v = abi.view();
  v.setUint32(0, 64, true);
  v.setUint32(4, 0x40000000, true); // 2^30 u64s: 8 GiB
  assert.throws(() => list(abi, 0), /out-of-bounds pointer: 8589934592 bytes at 64/);
  const str = liftOf({ k: "string" });
  assert.throws(() => str(abi, { args: [131070, 4], i: 0 }), WebAssembly.RuntimeError);
  assert.equal(str(abi, { args: [0, 0], i: 0 }), "");
});

Deno.test("a list of more than MAX_LIST_ITEMS host values traps before any is made", () => {
  const abi = new GuestAbi(() => new WebAssembly.Memory({ initial: 8 }));
  const list = liftOf({ k: "list", of: { k: "u32" } });
  assert.throws(
    () => list(abi, { args: [0, MAX_LIST_ITEMS + 1], i: 0 }),
    /a list of 65537 items passed to the host: at most 65536 a call/,
  );
  assert.equal((list(abi, { args: [0, MAX_LIST_ITEMS], i: 0 }) as number[]).length, MAX_LIST_ITEMS);
});
