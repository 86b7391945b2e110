import { TestHost } from "/work/main/tests/helpers/host.ts";
import { builtTestPlugin } from "/work/main/tests/helpers/plugins.ts";
Deno.test({ name: "scratch", sanitizeOps: false, sanitizeResources: false, async fn() {
  const probe = await builtTestPlugin("probe");
  const h = await TestHost.start({ plugins: { probe } });
  try {
    console.log(JSON.stringify(await h.call("probe.write_file", { path: "/state/x.txt", text: "hi" })));
    console.log(JSON.stringify(await h.call("probe.write_file", { path: "state/y.txt", text: "hi" })));
    console.log(JSON.stringify(await h.call("probe.read_file", { path: "/state/x.txt" })));console.log(JSON.stringify(await h.call("probe.read_file", { path: "/state/nothere/x.txt" })));console.log(JSON.stringify(await h.call("probe.read_file", { path: "/nothere.txt" })));
  } finally { await h.close(); }
}});
