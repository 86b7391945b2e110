import { Ajv } from "ajv";
import * as m from "@open-rpc/meta-schema";
import js from "@json-schema-tools/meta-schema/schema.json" with { type: "json" };
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, logger: false });
ajv.addMetaSchema(js); ajv.addMetaSchema({ ...js, $id: "https://meta.json-schema.tools" });
const v = ajv.compile((m as any).openrpcDocument);
v({ openrpc: "1.2.6", info: { title: "x", version: "1" }, extra: 1, methods: [{ name: "a", params: [{name: "p", schema: {type: 5}}] }] });
for (const e of v.errors!) console.log(e.instancePath, e.schemaPath, e.keyword, JSON.stringify(e.params));
