/**
 * The control socket, over a real Unix socket of a real host (an empty
 * world): the first line must be `$/hello`, what comes after is served, the
 * files it makes are the owner's alone and go when it closes, and a second
 * server on the same world is refused while the first answers.
 */

import { strict as assert } from "node:assert";
import { TestHost } from "../../tests/helpers/host.ts";
import { ControlServer, type HostFile } from "./control_server.ts";

/** Runs `f` on a fresh host of an empty world, its control socket in a private runtime folder. */
async function withListeningHost(f: (h: TestHost) => Promise<void>): Promise<void> {
  const runtime = await Deno.makeTempDir({ prefix: "control-runtime-" });
  await Deno.chmod(runtime, 0o700);
  const before = Deno.env.get("SAUSAGE_RUNTIME_DIR");
  Deno.env.set("SAUSAGE_RUNTIME_DIR", runtime);
  const h = await TestHost.start();
  try {
    await ControlServer.start(h.host);
    await f(h);
  } finally {
    await h.close();
    if (before === undefined) Deno.env.delete("SAUSAGE_RUNTIME_DIR");
    else Deno.env.set("SAUSAGE_RUNTIME_DIR", before);
    await Deno.remove(runtime, { recursive: true }).catch(() => {});
  }
}

/** Leaves a socket file at `path` that nothing answers: its listener was killed (SIGKILL). */
async function leaveStaleSocket(path: string): Promise<void> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      `Deno.listen({ transport: "unix", path: ${JSON.stringify(path)} }); console.log("up");` +
      "setInterval(() => {}, 1000);",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  await reader.read();
  child.kill("SIGKILL");
  await child.status;
  await reader.cancel();
}

/** A client of the socket: writes lines, reads them back one at a time, sees the end. */
class LineClient {
  private buf = "";
  private reader: ReadableStreamDefaultReader<string>;
  private constructor(private conn: Deno.UnixConn) {
    this.reader = conn.readable.pipeThrough(new TextDecoderStream()).getReader();
  }

  static async connect(path: string): Promise<LineClient> {
    return new LineClient(await Deno.connect({ transport: "unix", path }));
  }

  async send(msg: unknown): Promise<void> {
    const line = typeof msg === "string" ? msg : JSON.stringify(msg);
    await this.conn.write(new TextEncoder().encode(line + "\n"));
  }

  /** The next line as JSON, or null once the server closed the connection. */
  async next(): Promise<Record<string, unknown> | null> {
    while (!this.buf.includes("\n")) {
      const { value, done } = await this.reader.read();
      if (done) return null;
      this.buf += value;
    }
    const at = this.buf.indexOf("\n");
    const line = this.buf.slice(0, at);
    this.buf = this.buf.slice(at + 1);
    return JSON.parse(line);
  }

  close(): void {
    try {
      this.conn.close();
    } catch { /* closed */ }
  }
}

Deno.test("a first line that is not $/hello is answered -32600 and the connection closes unserved", async () => {
  await withListeningHost(async (h) => {
    const c = await LineClient.connect(h.host.control.path);
    try {
      await c.send({ jsonrpc: "2.0", id: 1, method: "$/ps" });
      const answer = await c.next();
      assert.equal((answer?.error as { code: number }).code, -32600);
      assert.match(
        (answer?.error as { message: string }).message,
        /first message must be a \$\/hello/,
      );
      assert.equal(answer?.id, null);
      assert.equal(await c.next(), null, "the connection is closed");
    } finally {
      c.close();
    }
  });
});

Deno.test("after $/hello, requests are served and a line that is not JSON-RPC is -32700", async () => {
  await withListeningHost(async (h) => {
    const c = await LineClient.connect(h.host.control.path);
    try {
      await c.send({ jsonrpc: "2.0", id: 1, method: "$/hello" });
      const hello = await c.next();
      assert.equal(hello?.id, 1);
      assert.equal(hello?.error, undefined, JSON.stringify(hello));
      await c.send("not json at all");
      const bad = await c.next();
      assert.equal((bad?.error as { code: number }).code, -32700);
      await c.send({ jsonrpc: "2.0", id: 2, method: "$/ps" });
      const ps = await c.next();
      assert.equal(ps?.id, 2);
      assert.ok(ps && "result" in ps, JSON.stringify(ps));
    } finally {
      c.close();
    }
  });
});

Deno.test("the socket and the host file are the owner's alone, name this process, and go at close", async () => {
  await withListeningHost(async (h) => {
    const path = h.host.control.path;
    assert.equal((await Deno.lstat(path)).mode! & 0o777, 0o600);
    const hostFile = h.host.world.hostFile();
    assert.equal((await Deno.stat(hostFile)).mode! & 0o777, 0o600);
    const file = JSON.parse(await Deno.readTextFile(hostFile)) as HostFile;
    assert.equal(file.pid, Deno.pid);
    assert.equal(file.world, h.host.world.root);
    await h.host.control.close();
    await assert.rejects(Deno.lstat(path), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(hostFile), Deno.errors.NotFound);
  });
});

Deno.test("a second server on a world whose socket answers is refused and leaves the socket alone", async () => {
  await withListeningHost(async (h) => {
    const path = h.host.control.path;
    const second = new ControlServer(h.host);
    await assert.rejects(second.listen(), /another process serves the control socket/);
    const c = await LineClient.connect(path);
    try {
      await c.send({ jsonrpc: "2.0", id: 1, method: "$/hello" });
      assert.equal((await c.next())?.id, 1, "the first server still answers");
    } finally {
      c.close();
    }
  });
});

Deno.test("a stale socket file of a host that is gone is replaced", async () => {
  await withListeningHost(async (h) => {
    const path = h.host.control.path;
    // The first server goes, and a process that listened on the path is killed: its file stays.
    await h.host.control.close();
    await leaveStaleSocket(path);
    assert.ok((await Deno.lstat(path)).isSocket, "the stale socket file is there");
    const again = new ControlServer(h.host);
    await again.listen();
    try {
      const c = await LineClient.connect(path);
      try {
        await c.send({ jsonrpc: "2.0", id: 7, method: "$/hello" });
        assert.equal((await c.next())?.id, 7);
      } finally {
        c.close();
      }
    } finally {
      await again.close();
    }
  });
});
