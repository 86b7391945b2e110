/**
 * The remote mount runs the shared conformance suite: a `RemoteMount` in
 * the sandbox, its requests carried as JSON (as on the sandbox's pipe) to
 * the core's `FsServer`, which serves `/run` (memory), `/self` (a process
 * folder), `/proc` (read-only) and a disk folder. No fixture may cause a
 * host fault.
 */

import { strict as assert } from "node:assert";
import { FsServer } from "../../core/files/fs_server.ts";
import { HostError } from "../../rpc/errors.ts";
import { type Fixture, mountConformance } from "../../vfs/conformance.ts";
import { DiskMount } from "../../vfs/disk_mount.ts";
import { MemMount } from "../../vfs/mem_mount.ts";
import { type Mount, READ_ONLY } from "../../vfs/mount.ts";
import { ProcMount } from "../../vfs/proc_mount.ts";
import type { ProcSource } from "../../vfs/proc_source.ts";
import { ProcessDir } from "../../vfs/process_dir.ts";
import type { FsReply, RemoteMountName } from "../hop/protocol.ts";
import { FsChannel, RemoteMount } from "./remote_mount.ts";
import { guard } from "../wasi/filesystem_values.ts";

/** A round trip through JSON, as every message on the pipe makes. */
function wire<T>(msg: T): T {
  return JSON.parse(JSON.stringify(msg));
}

/**
 * `mount` served by a core, seen from a sandbox as the mount `name`; the
 * cleanup checks that the core had no host fault.
 */
function remote(
  name: RemoteMountName,
  mount: Mount,
  writable: boolean,
  cleanup: () => unknown = () => {},
  existingFile?: string,
  wholeMax = 0,
): Promise<Fixture> {
  const faults: HostError[] = [];
  const server = new FsServer({ [name]: mount }, (fault) => faults.push(fault), wholeMax > 0);
  const channel: FsChannel = new FsChannel("p-1", (msg) => {
    if (msg.op !== "fs") return;
    server.handle(wire(msg), wholeMax).then(({ seen: _seen, ...reply }) =>
      channel.reply(wire(reply as FsReply))
    );
  });
  return Promise.resolve({
    mount: new RemoteMount(name, writable, channel),
    existingFile,
    async cleanup() {
      server.close();
      await cleanup();
      assert.deepEqual(faults.map((f) => f.message), []);
    },
  });
}

/** The core's state with one process, `p-1`, and one file in `/proc/core/`. */
function source(): ProcSource {
  const files = new MemMount();
  return {
    pids: () => ["p-1"],
    info: (pid) => pid === "p-1" ? { pid } : undefined,
    log: (pid) => pid === "p-1" ? ["a line"] : undefined,
    selfFiles: (pid) => pid === "p-1" ? files : undefined,
    coreFiles: () => ({ "contract.md": () => "# The contract\n" }),
    plugins: () => [],
    pluginFile: (name) => Promise.reject(new Error(`no plugin ${name}`)),
  };
}

mountConformance("/run (remote)", () => remote("run", new MemMount(), true), true);

mountConformance("/self (remote)", () => {
  return remote("self", new ProcessDir(source(), "p-1", true), true);
}, true);

mountConformance("/proc (remote)", () => {
  return remote("proc", new ProcMount(source()), false, undefined, "core/contract.md");
}, false);

mountConformance("a disk folder (remote)", async () => {
  const dir = await Deno.makeTempDir();
  return remote("run", new DiskMount(dir), true, () => Deno.remove(dir, { recursive: true }));
}, true);

mountConformance("a world served to a remote worker's process (small files whole)", async () => {
  const dir = await Deno.makeTempDir();
  const clean = () => Deno.remove(dir, { recursive: true });
  return remote("world", new DiskMount(dir), true, clean, undefined, 64 * 1024);
}, true);

Deno.test("a file that comes whole with its open is read and stat'ed without a message; its close is told", async () => {
  const sent: string[] = [];
  const stat = { type: "regular-file", size: 13, nlink: 1, ino: "7" };
  const channel: FsChannel = new FsChannel("p-1", (msg) => {
    if (msg.op !== "fs") return;
    sent.push(msg.call.method);
    const whole = msg.call.method === "open"
      ? { whole: { data: btoa("from the host"), stat } }
      : {};
    queueMicrotask(() =>
      channel.reply({ op: "fs-reply", pid: "p-1", id: msg.id, result: 5, ...whole })
    );
  });
  const mount = new RemoteMount("world", true, channel);
  const h = (await mount.open("hello.txt", READ_ONLY))!;
  assert.equal(new TextDecoder().decode(await h.read(100, 5)), "the host");
  assert.equal(await h.size(), 13);
  assert.equal((await h.stat()).ino, 7n);
  await assert.rejects(async () => await h.write(new Uint8Array(1), 0), /reading only/);
  assert.deepEqual(sent, ["open"]);
  h.close();
  assert.deepEqual(sent, ["open", "h.close"]);
});

Deno.test("a host fault in the core reaches the sandbox as a HostError, which the WASI layer does not turn into an error-code", async () => {
  const run = new MemMount();
  run.readDir = () => {
    throw new TypeError("a bug in the mount");
  };
  const { mount } = await remote("run", run, true);
  const fault = (e: unknown) => e instanceof HostError && e.code === "host-fault";
  await assert.rejects(async () => await mount.readDir(""), fault);
  await assert.rejects(() => guard(() => mount.readDir("")), fault, "thrown on: the guest traps");
  await assert.rejects(
    () => guard(() => mount.stat("missing", true)),
    (e) => JSON.stringify(e) === '{"payload":"no-entry"}',
    "an errno is still the guest's error-code",
  );
});
