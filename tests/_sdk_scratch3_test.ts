import { TestHost } from "/work/main/tests/helpers/host.ts";
Deno.test({ name: "scratch", sanitizeOps: false, sanitizeResources: false, async fn() {
  const h = await TestHost.start({ plugins: { exp: "/tmp/exp1.wasm" } });
  try {
    console.log(JSON.stringify(await h.call("exp.x", {})));
    const log = await h.result("core.log", { plugin: "exp", limit: 50 });
    console.log((log as {stream:string, line:string}[]).map((e) => `${e.stream}: ${e.line}`).join("\n"));
  } finally { await h.close(); }
}});
