/**
 * A worker's whole files: a handle's requests answered from the bytes that
 * came with its open; a kept file answering later opens of its path by any
 * process, until the host says to drop it.
 */

import { strict as assert } from "node:assert";
import { HELD_MAX, WholeFiles } from "./whole_files.ts";
import type { FsRequest } from "../sandbox/hop/protocol.ts";
import { READ_ONLY } from "../vfs/mount.ts";
import { fromBase64, toBase64 } from "../rpc/base64.ts";

const KEY = JSON.stringify(["hello.txt", false]);
const stat = { type: "regular-file", size: 13, nlink: 1, ino: "7" } as const;

let id = 0;
function req(pid: string, method: string, args: unknown[]): FsRequest {
  return { op: "fs", pid, id: ++id, mount: "world", call: { method, args } } as FsRequest;
}

function whole(pid: string, handle: number, keep?: string) {
  return {
    op: "fs-reply" as const,
    pid,
    id: 1,
    result: handle,
    whole: { data: toBase64(new TextEncoder().encode("from the host")), stat, keep },
  };
}

Deno.test("a whole file's handle is answered here; not kept, its path's next open is the host's", () => {
  const files = new WholeFiles();
  const reply = files.took(whole("p1", 3));
  assert.deepEqual(
    reply,
    {
      op: "fs-reply",
      pid: "p1",
      id: 1,
      result: 3,
      whole: { data: whole("p1", 3).whole.data, stat },
    },
    "the file goes on whole, for the sandbox",
  );
  const read = files.answer(req("p1", "h.read", [3, 4, 5]));
  assert.equal(new TextDecoder().decode(fromBase64(read!.result as string)), "the ");
  assert.deepEqual(files.answer(req("p1", "h.stat", [3]))!.result, stat);
  assert.equal(files.answer(req("p2", "h.read", [3, 4, 0])), null, "another process's handle");
  assert.equal(files.answer(req("p1", "h.write", [3, "", 0]))!.error?.code, "bad-descriptor");
  assert.equal(files.answer(req("p1", "open", ["hello.txt", READ_ONLY])), null);
  assert.equal(files.answer(req("p1", "h.close", [3]))!.result, null);
  assert.equal(files.answer(req("p1", "h.read", [3, 4, 0])), null, "closed: the host's to answer");
});

Deno.test("a kept file answers read-only opens of its path by any process, until dropped", () => {
  const files = new WholeFiles();
  files.took(whole("p1", 3, KEY));
  assert.equal(files.keptCount, 1);
  const opened = files.answer(req("p2", "open", ["hello.txt", READ_ONLY]))!;
  assert.equal(new TextDecoder().decode(fromBase64(opened.whole!.data)), "from the host");
  assert.deepEqual(opened.whole!.stat, stat);
  const h = opened.result as number;
  assert(h > 2 ** 40, "a handle of its own, far from the host's");
  const read = files.answer(req("p2", "h.read", [h, 100, 0]))!;
  assert.equal(new TextDecoder().decode(fromBase64(read.result as string)), "from the host");
  assert.equal(files.answer(req("p2", "open", ["hello.txt", { ...READ_ONLY, write: true }])), null);
  assert.equal(files.answer(req("p2", "open", ["other.txt", READ_ONLY])), null);
  files.uncache([KEY]);
  assert.equal(files.answer(req("p3", "open", ["hello.txt", READ_ONLY])), null, "dropped");
  assert(files.answer(req("p2", "h.read", [h, 100, 0])), "an open handle keeps its bytes");
  files.took(whole("p1", 4, KEY));
  files.uncache([], true);
  assert.equal(files.keptCount, 0);
  files.took(whole("p1", 5, KEY));
  files.ended("p2");
  assert.equal(files.answer(req("p2", "h.read", [h, 100, 0])), null, "its process ended");
  files.clear();
  assert.equal(files.answer(req("p3", "open", ["hello.txt", READ_ONLY])), null);
});

Deno.test("a process holds at most HELD_MAX handles here; then its opens are the host's", () => {
  const files = new WholeFiles();
  files.took(whole("p0", 1, KEY));
  for (let i = 0; i < HELD_MAX; i++) {
    assert(files.answer(req("p1", "open", ["hello.txt", READ_ONLY])));
  }
  assert.equal(files.answer(req("p1", "open", ["hello.txt", READ_ONLY])), null);
});
