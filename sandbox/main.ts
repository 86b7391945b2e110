/**
 * The sandbox: a long-lived subprocess that runs one process at a time, each
 * a fresh instance, and talks to the core with the messages of `protocol.ts`.
 * The core kills the whole sandbox to kill a process that does not stop.
 *
 * @module
 */

import type { FromSandbox, ToSandbox } from "./protocol.ts";
import { runProcess } from "./instance.ts";
import { ByteQueue } from "./wasi/pipes.ts";
import { FsChannel } from "./remote_mount.ts";

const encoder = new TextEncoder();

function send(msg: FromSandbox): void {
  const bytes = encoder.encode(JSON.stringify(msg) + "\n");
  let n = 0;
  while (n < bytes.length) n += Deno.stdout.writeSync(bytes.subarray(n));
}

let stdin: ByteQueue | null = null;
let fs: FsChannel | null = null;

function handle(msg: ToSandbox): void {
  switch (msg.op) {
    case "run": {
      const queue = new ByteQueue();
      stdin = queue;
      fs = new FsChannel(send);
      if (msg.request !== undefined) queue.push(encoder.encode(msg.request + "\n"));
      runProcess(msg.dir, msg.world, msg.env, {
        stdin: queue,
        fs,
        onStdout: (line) => send({ op: "out", line }),
        onStderr: (line) => send({ op: "err", line }),
      }, { args: msg.args, cwd: msg.cwd, preopens: msg.preopens }).then((ended) => {
        stdin = null;
        fs = null;
        send({ op: "exit", ...ended });
      });
      break;
    }
    case "in":
      stdin?.push(encoder.encode(msg.line + "\n"));
      break;
    case "eof":
      stdin?.end();
      break;
    case "fs-reply":
      fs?.reply(msg);
      break;
  }
}

async function main(): Promise<void> {
  send({ op: "ready" });
  let buffer = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line) handle(JSON.parse(line) as ToSandbox);
    }
  }
  Deno.exit(0); // the core went away
}

main();
