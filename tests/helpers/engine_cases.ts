/**
 * What the engine differential suite (`tests/engine_differential_test.ts`)
 * runs: every test plugin and every example plugin (the SDK's examples, the
 * example world's plugins, the agent against a scripted model), each in a
 * world of its own with the plugins it calls, and a script of calls whose
 * answers do not depend on the engine.
 *
 * @module
 */

import { builtCrate, builtTestPlugin } from "./plugins.ts";
import { ScriptedModel } from "./scripted_model.ts";

/** One call: a method and its params, or made from the answers so far. */
export type Call =
  | [method: string, params: Record<string, unknown>]
  | ((answers: unknown[]) => [
    string,
    Record<string, unknown>,
  ]);

/** A world and its script. */
export interface Case {
  /** The world's plugins: name → built component. */
  plugins(): Promise<Record<string, string>>;
  /** The calls, made one after the other (with what `around` set up). */
  calls(env: Env): Call[];
  /** Extra files of the world. */
  files?(env: Env): Record<string, string>;
  /** Set up before both runs (a server the calls reach), closed after. */
  around?(): Promise<Env & { close(): Promise<void> }>;
  /** Checked after both runs. */
  check?(env: Env): void;
  /** An answer with what differs from run to run (ports) made alike. */
  alike?(answer: unknown): unknown;
}

/** What `around` made. */
export type Env = Record<string, unknown>;

const big = "x".repeat(1 << 20);

/** A port no one listens on (bound, then closed). */
function closedPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = l.addr.port;
  l.close();
  return port;
}

const test = (name: string) => async () => ({ [name]: await builtTestPlugin(name) });
const example = (dir: string, name: string, as = name) => async () => ({
  [as]: await builtCrate(dir, `differential-${as}`),
});
const world = (name: string) => example(`examples/world/plugins/${name}/source`, name);

/** The cases by name. */
export const CASES: Record<string, Case> = {
  probe: {
    plugins: test("probe"),
    calls: () => [
      ["probe.noop", {}],
      ["probe.echo", { a: [1, 2, { b: "c" }], big }],
      ["probe.write_file", { path: "/out.txt", text: "hello\nworld" }],
      ["probe.read_file", { path: "/out.txt" }],
      ["probe.read_file", { path: "/missing.txt" }],
      ["probe.write_file", { path: "/state/big.txt", text: big }],
      ["probe.error", { why: 1 }],
      ["probe.exit", { code: 3 }],
      ["probe.panic", {}],
      ["probe.fib", { n: 20 }],
      ["probe.count", { n: 100000 }],
      ["probe.sleep", { ms: 5 }],
      ["probe.spew", { n: 3, len: 20 }],
    ],
  },
  hostile: {
    plugins: test("hostile"),
    calls: () => [["hostile.clobber_core", {}], ["hostile.make_links", {}], ["hostile.mark", {}]],
  },
  talker: { plugins: test("talker"), calls: () => [["talker.chat", { text: "hi", step_ms: 1 }]] },
  mcpprobe: {
    plugins: test("mcpprobe"),
    calls: () => [["mcpprobe.rpc.discover", {}], ["mcpprobe.progress", {}], ["mcpprobe.fail", {}]],
  },
  iface: {
    plugins: test("iface"),
    calls: () => [["iface.rpc.discover", {}], ["iface.version", {}]],
  },
  looper: {
    plugins: test("looper"),
    calls: () => [["looper.noop", {}]],
  },
  fsprobe: {
    plugins: test("fsprobe"),
    calls: () => [["fsprobe.run", {
      ops: [
        { op: "mkdir_all", path: "/d/e/f" },
        { op: "write", path: "/d/a.txt", text: "one" },
        { op: "append", path: "/d/a.txt", text: "two" },
        { op: "create_new", path: "/d/a.txt", text: "again" },
        { op: "create_new", path: "/d/b.txt", text: "bee" },
        { op: "read", path: "/d/a.txt" },
        { op: "list", path: "/d" },
        { op: "rename", from: "/d/b.txt", to: "/d/e/c.txt" },
        { op: "truncate", path: "/d/a.txt", len: 2 },
        { op: "seek_write", path: "/d/a.txt", offset: 4, text: "z" },
        { op: "seek_read", path: "/d/a.txt", offset: 1, len: 10 },
        { op: "symlink", target: "a.txt", path: "/d/link" },
        { op: "readlink", path: "/d/link" },
        { op: "exists", path: "/d/link" },
        { op: "exists", path: "/nope" },
        { op: "rmdir", path: "/d/e" },
        { op: "remove", path: "/d/e/c.txt" },
        { op: "rmdir", path: "/d/e/f" },
        { op: "list", path: "/d/e" },
        { op: "read", path: "/../etc/passwd" },
        { op: "list", path: "/proc" },
        { op: "write", path: "/proc/x", text: "no" },
      ],
    }]],
  },
  "bigsource and bigsink": {
    plugins: async () => ({ ...await test("bigsource")(), ...await test("bigsink")() }),
    calls: () => [
      ["bigsource.max", {}],
      ["bigsource.extremes", {}],
      ["bigsink.relay", {}],
    ],
  },
  net: {
    plugins: test("net"),
    around() {
      const server = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen: () => {} },
        async (r) =>
          new Response(`${r.method} ${new URL(r.url).pathname} ${await r.text()}`, {
            headers: { "x-seen": r.headers.get("x-test") ?? "" },
          }),
      );
      return Promise.resolve({
        port: server.addr.port,
        closed: closedPort(),
        close: () => server.shutdown(),
      });
    },
    calls: ({ port, closed }) => [
      ["net.http", {
        method: "POST",
        authority: `127.0.0.1:${port}`,
        path: "/path?q=1",
        headers: [["x-test", "yes"]],
        body: "the body",
      }],
      ["net.http", { authority: `127.0.0.1:${closed}`, path: "/" }],
      ["net.dns", { name: "127.0.0.1" }],
      ["net.dns", { name: "::1" }],
      ["net.dns", { name: "not a name" }],
      ["net.udp_pair", {}],
      ["net.tcp_connect", { port: closed }],
      ["net.tcp_states", {}],
    ],
    // The ports the system picked for UDP sockets.
    alike: (a) =>
      JSON.parse(JSON.stringify(a).replace(/("[a-z_]+_(?:port|from|remote)":)\d+/g, "$1 0")),
  },
  notes: {
    plugins: example("examples/notes", "notes"),
    calls:
      () => [["notes.add", { text: "one" }], ["notes.add", { text: "two" }], ["notes.list", {}]],
  },
  secrets: {
    plugins: example("examples/secrets", "secrets"),
    calls: () => [
      ["secrets.names", {}],
      ["secrets.set", { name: "b", value: "2" }],
      ["secrets.get", { name: "b" }],
      ["secrets.get", { name: "nothere" }],
      ["secrets.delete", { name: "b" }],
      ["secrets.names", {}],
    ],
  },
  "consumer, notes and www": {
    plugins: async () => ({
      ...await example("examples/consumer", "consumer")(),
      ...await example("examples/notes", "notes")(),
      ...await example("examples/www", "www")(),
    }),
    calls: () => [
      ["consumer.note", { text: "from the consumer" }],
      ["consumer.notes", {}],
      ["www.stats", {}],
    ],
  },
  sdkprobe: {
    plugins: example("sdk/tests/plugins/sdkprobe", "sdkprobe"),
    calls: () => [
      ["sdkprobe.echo", { method: "x", params: { a: 1 } }],
      ["sdkprobe.progress", { count: 3 }],
      ["sdkprobe.fanout", {
        calls: [1, 2, 3].map((ms) => ({ method: "sdkprobe.sleepy", params: { ms } })),
      }],
      ["sdkprobe.relay", {
        call: { method: "sdkprobe.fail", params: { code: -32001, message: "no" } },
      }],
      ["sdkprobe.try_lock", { path: "/state/l", hold_ms: 1 }],
      // Abandoned after 500 ms, when the callee has started on either engine: abandoned after
      // 20 ms, a cold run's callee was sometimes cancelled before it started (an exit fewer).
      ["sdkprobe.abandon", { call: { method: "sdkprobe.sleepy", params: { ms: 2000 } }, ms: 500 }],
      ["sdkprobe.fail", { code: -32001, message: "no" }],
    ],
  },
  "the example world's plugins": {
    plugins: async () => ({
      ...await world("hello")(),
      ...await example("examples/world/plugins/notes/source", "notes")(),
      ...await example("examples/world/plugins/secrets/source", "secrets")(),
      ...await example("examples/world/plugins/www/source", "www")(),
      ...await example("examples/world/plugins/consumer/source", "consumer")(),
    }),
    calls: () => [
      ["hello.greet", { name: "you" }],
      ["secrets.set", { name: "a", value: "1" }],
      ["secrets.names", {}],
      ["consumer.note", { text: "hi" }],
      ["notes.list", {}],
    ],
  },
  agent: {
    plugins: world("agent"),
    around() {
      const model = new ScriptedModel("openai", [
        () => ({ text: ["Hello ", "there."] }),
        () => ({ text: ["Hello ", "there."] }),
      ]);
      return Promise.resolve({ model, close: () => model.close() });
    },
    files: ({ model }) => ({
      "config/agent.json": (model as ScriptedModel).config({ stream: true }),
    }),
    calls: () => [["agent.chat", { text: "hi" }]],
    check: ({ model }) => (model as ScriptedModel).check(),
  },
};
