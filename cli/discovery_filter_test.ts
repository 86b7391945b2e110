import { strict as assert } from "node:assert";
import type { Entry } from "../core/journal/journal.ts";
import { DiscoveryFilter } from "./discovery_filter.ts";

const entry = (pid: string, line: string, stream: Entry["stream"] = "core"): Entry => ({
  id: pid + line,
  time: 0,
  pid,
  plugin: pid.split("-")[0],
  stream,
  line,
});

Deno.test("DiscoveryFilter hides every entry of the core's rpc.discover calls, and nothing else", () => {
  const f = new DiscoveryFilter();
  const kept = [
    entry("notes-1", '{"event":"start","method":"rpc.discover","params":{},"parent":"core"}'),
    entry("notes-2", '{"event":"start","method":"add","params":{},"parent":"console"}'),
    entry("notes-3", '{"event":"start","method":"rpc.discover","params":{},"parent":"agent"}'),
    entry("notes-1", '{"event":"exit","status":0}'),
    entry("notes-2", "added", "stderr"),
  ].filter((e) => f.keep(e)).map((e) => e.pid);
  assert.deepEqual(kept, ["notes-2", "notes-3", "notes-2"]);
});
