// __PLUGIN__: a Sausage plugin in AssemblyScript (docs/languages.md). Every call
// runs this program once: it reads the request (one JSON-RPC line on stdin),
// writes one answer line on stdout, and returns. Build it: npm install && npm run build.

/** The rpc.discover document: what `sausage methods` and MCP show of this plugin. */
const DOCUMENT = `{"openrpc":"1.2.6","info":{"title":"__PLUGIN__","version":"0.1.0"},` +
  `"methods":[{"name":"greet","summary":"Greet someone by name.","paramStructure":"by-name",` +
  `"params":[{"name":"name","required":false,"description":"Who to greet (default: world).",` +
  `"schema":{"type":"string"}}],"result":{"name":"greeting","schema":{"type":"string"}}}]}`;

/** Reads stdin up to the first newline: the request. */
function readLine(): string {
  const chunk = new ArrayBuffer(4096);
  let text = "";
  while (true) {
    const n = process.stdin.read(chunk);
    if (n <= 0) return text; // EOF: stop now
    text += String.UTF8.decode(chunk.slice(0, n));
    const nl = text.indexOf("\n");
    if (nl >= 0) return text.slice(0, nl);
  }
}

/**
 * The string value of `"key":"..."` in the request, or null. No escapes: enough for
 * ids (the pid), method names and plain values; use a JSON library for more.
 */
function field(line: string, key: string): string | null {
  const start = line.indexOf(`"${key}":"`);
  if (start < 0) return null;
  const from = start + key.length + 4;
  const end = line.indexOf('"', from);
  return end < 0 ? null : line.slice(from, end);
}

const line = readLine();
const id = field(line, "id");
const method = field(line, "method");
if (id !== null && method !== null) {
  let answer: string;
  if (method == "rpc.discover") answer = `"result":${DOCUMENT}`;
  else if (method == "greet") {
    const name = field(line, "name");
    // A stderr line goes to the journal.
    console.error(`greeting ${name !== null ? name : "world"}`);
    answer = `"result":"Hello, ${name !== null ? name : "world"}!"`;
  } else answer = `"error":{"code":-32601,"message":"__PLUGIN__ has no method ${method}"}`;
  // Start the answer on a fresh line (PROTOCOL 4.1).
  process.stdout.write(`\n{"jsonrpc":"2.0","id":"${id}",${answer}}\n`);
}
