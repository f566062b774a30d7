/**
 * emitStandard: IR + the schema's raw `$defs` -> three modules in `standard/` of
 * one surface, published as subpaths of their own and never re-exported by
 * index.ts, so the plain entry points, their bundles and the surface's own
 * `.d.ts` files stay as they are:
 * - `standard/strict.ts` (`acp-bindings/<surface>/standard`): a Standard Schema V1
 *   per `$defs` type, strict (`validate.X`);
 * - `standard/tolerant.ts` (`.../standard-tolerant`): the same over `parse.X`;
 * - `standard/json-schema.ts`: per type a function adding its JSON Schema
 *   definition and those it references, which `~standard.jsonSchema` assembles.
 */
import { ident, jsDoc, literal } from "../code.js";
import type { Def, SchemaIR } from "../ir.js";
import { runtimeDir } from "./shared.js";

/** The Standard Schema modules: their subpath under a surface, file and the namespace they check with. */
export const STANDARD_MODULES = [
  { name: "standard", module: "standard/strict", check: "validate", doc: "strict: `validate.X`, returns the input itself when valid" },
  { name: "standard-tolerant", module: "standard/tolerant", check: "parse", doc: "tolerant: `parse.X`, returns a fresh decoded value" },
] as const;

const JSON_SCHEMA_MODULE = "standard/json-schema";

/** The files of one surface: standard/json-schema.ts and one module per entry of STANDARD_MODULES. */
export function emitStandard(ir: SchemaIR, rawDefs: ReadonlyMap<string, unknown>, header: string): { path: string; content: string }[] {
  const dir = `src/${ir.surface}`;
  return [
    { path: `${dir}/${JSON_SCHEMA_MODULE}.ts`, content: header + jsonSchemaModule(ir, rawDefs) },
    ...STANDARD_MODULES.map((m) => ({ path: `${dir}/${m.module}.ts`, content: header + standardModule(ir, m) })),
  ];
}

function schemaKey(def: Def): string {
  return def.schemaName ?? def.name;
}

function standardModule(ir: SchemaIR, m: (typeof STANDARD_MODULES)[number]): string {
  const head = [
    jsDoc([
      `Standard Schema V1 objects (https://standardschema.dev), one per \`$defs\` type, ${m.doc}.`,
      "Each is also a Standard JSON Schema V1: `~standard.jsonSchema.input({ target: \"draft-2020-12\" })`.",
      "@module",
    ]),
    `import type * as T from "../types.js";`,
    `import * as check from ${literal(`../${m.check}.js`)};`,
    `import * as json from "./json-schema.js";`,
    `import { standardSchema, type AcpStandardSchema } from ${literal(`../${runtimeDir(ir)}/standard.js`)};`,
    "",
  ];
  const consts = ir.defs.map((def) => {
    const name = ident(def.name);
    const doc = jsDoc([`Standard Schema of \`${def.name}\` (${m.check}.${def.name}).`]);
    return `${doc}export const ${name}: AcpStandardSchema<T.${name}> = /* @__PURE__ */ standardSchema(check.${name}, ${literal(schemaKey(def))}, json.${name});\n`;
  });
  return [...head, ...consts].join("\n");
}

function jsonSchemaModule(ir: SchemaIR, rawDefs: ReadonlyMap<string, unknown>): string {
  const byKey = new Map(ir.defs.map((def) => [schemaKey(def), def]));
  const head = [
    jsDoc(["The JSON Schema definition of every `$defs` type, for `~standard.jsonSchema` of the Standard Schema modules.", "@module"]),
    `import { addDef, type JsonSchemaDefs } from ${literal(`../${runtimeDir(ir)}/standard.js`)};`,
    "",
  ];
  const functions = ir.defs.map((def) => {
    const raw = rawDefs.get(schemaKey(def));
    const refs = [...referencedKeys(raw)].map((key) => {
      const target = byKey.get(key);
      if (target === undefined) throw new Error(`${ir.file}${def.pointer}: $ref to #/$defs/${key}, which is not a def`);
      return `    ${ident(target.name)}(defs);\n`;
    });
    const doc = jsDoc([`Adds the definition of \`${schemaKey(def)}\` and every definition it references to \`defs\`.`]);
    const add = `addDef(defs, ${literal(schemaKey(def))}, ${literal(JSON.stringify(raw))})`;
    const body = refs.length ? `  if (${add}) {\n${refs.join("")}  }\n` : `  ${add};\n`;
    return `${doc}export function ${ident(def.name)}(defs: JsonSchemaDefs): void {\n${body}}\n`;
  });
  return [...head, ...functions].join("\n");
}

/** The `$defs` keys a definition refers to (`#/$defs/<key>`), in order of first appearance; iterative walk. */
function referencedKeys(raw: unknown): Set<string> {
  const keys = new Set<string>();
  const stack: unknown[] = [raw];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value !== "object" || value === null) continue;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries.reverse()) {
      if (key === "$ref" && typeof child === "string" && child.startsWith("#/$defs/")) keys.add(unescapePointer(child.slice("#/$defs/".length)));
      else stack.push(child);
    }
  }
  return keys;
}

function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** The package README's section on the Standard Schema subpaths; the example uses `surface`. */
export function standardReadmeSection(packageName: string, surface: string): string {
  return `## Standard Schema

\`${packageName}/<surface>/standard\` exports, for every type \`X\`, a [Standard Schema](https://standardschema.dev) V1 object
that checks with \`validate.X\`; \`${packageName}/<surface>/standard-tolerant\` the same with \`parse.X\`. Hand them to any
library that takes a Standard Schema. Issues carry the Standard \`path\` and \`pointer\`, a JSON pointer. Each object is also a
Standard JSON Schema V1: \`~standard.jsonSchema.input({ target: "draft-2020-12" })\` returns the type's JSON Schema (other
targets throw, as that spec asks).

\`\`\`ts
import * as standard from "${packageName}/${surface}/standard";

const result = standard.PromptRequest["~standard"].validate({ sessionId: "s1", prompt: [{ type: "text", text: 5 }] });
if (result.issues) console.log(result.issues.map((issue) => issue.pointer)); // ["/prompt/0/text"]
const jsonSchema = standard.PromptRequest["~standard"].jsonSchema.input({ target: "draft-2020-12" });
\`\`\`
`;
}
