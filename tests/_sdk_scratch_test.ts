import { TestHost } from "/work/main/tests/helpers/host.ts";
Deno.test({ name: "scratch", sanitizeOps: false, sanitizeResources: false, async fn() {
  const h = await TestHost.start({ plugins: { notes: "/tmp/notes.wasm" } });
  try {
    console.log(JSON.stringify(await h.call("notes.add", { text: "milk" })));
    console.log(JSON.stringify(await h.call("notes.add", { text: "eggs" })));
    console.log(JSON.stringify(await h.call("notes.list")));
    console.log(JSON.stringify(await h.call("notes.rpc.discover"), null, 1));
    console.log(JSON.stringify(await h.call("notes.nope")));
    console.log(JSON.stringify(await h.call("notes.add", {})));
    const log = await h.result("core.log", { plugin: "notes", limit: 50 });
    console.log((log as {stream:string, line:string}[]).map((e) => `${e.stream}: ${e.line}`).join("\n"));
  } finally { await h.close(); }
}});
