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
import type { Emitter } from "../api.js";
import { block, code, doc, GeneratedFile, name } from "../code.js";
import type { Def } from "../ir.js";
import type { SurfaceModel } from "../model.js";

/** The Standard Schema modules: their subpath under a surface, file, the namespace they check with and the runtime factory that calls it. */
export const STANDARD_MODULES = [
  {
    name: "standard",
    module: "standard/strict",
    check: "validate",
    factory: "strictStandardSchema",
    via: (type: string) => `validate.${type}(value, { all: true })`,
    doc: "strict: `validate.X` with `{ all: true }` (every issue, in document order), returns the input itself when valid",
  },
  { name: "standard-tolerant", module: "standard/tolerant", check: "parse", factory: "standardSchema", via: (type: string) => `parse.${type}(value)`, doc: "tolerant: `parse.X`, returns a fresh decoded value" },
] as const;

const JSON_SCHEMA_MODULE = "standard/json-schema";

/** The Standard Schema files of every surface: standard/json-schema.ts and one module per entry of STANDARD_MODULES (published as subpaths, not re-exported). */
export const STANDARD_EMITTER: Emitter = {
  apiVersion: 1,
  name: "standard",
  requires: ["types", "validate", "parse"],
  runtime: ["standard"],
  files: [
    { path: `${JSON_SCHEMA_MODULE}.ts`, exports: "none", emit: (model, context) => jsonSchemaModule(model, context.runtime) },
    ...STANDARD_MODULES.map((m) => ({ path: `${m.module}.ts`, exports: "none" as const, emit: (model: SurfaceModel, context: { runtime: string }) => standardModule(model, m, context.runtime) })),
  ],
};

function schemaKey(def: Def): string {
  return def.schemaName ?? def.name;
}

function standardModule(model: SurfaceModel, m: (typeof STANDARD_MODULES)[number], runtime: string): string {
  const f = new GeneratedFile();
  const types = f.importAll("../types.js", "T", { type: true });
  const check = f.importAll(`../${m.check}.js`, "check");
  const json = f.importAll("./json-schema.js", "json");
  const factory = f.import(`${runtime}/standard.js`, m.factory);
  const schemaType = f.import(`${runtime}/standard.js`, "AcpStandardSchema", { type: true });
  f.print(
    doc([
      `Standard Schema V1 objects (https://standardschema.dev), one per \`$defs\` type, ${m.doc}.`,
      "Each is also a Standard JSON Schema V1: `~standard.jsonSchema.input({ target: \"draft-2020-12\" })`.",
      "@module",
    ]),
  );
  for (const def of model.defs) {
    const type = name(def.name);
    f.print(
      code`${doc([`Standard Schema of \`${def.name}\` (\`${m.via(def.name)}\`).`])}export const ${type}: ${schemaType}<${types}.${type}> = /* @__PURE__ */ ${factory}(${check}.${type}, ${schemaKey(def)}, ${json}.${type});`,
    );
  }
  return f.toString();
}

function jsonSchemaModule(model: SurfaceModel, runtime: string): string {
  const byKey = new Map(model.defs.map((def) => [schemaKey(def), def]));
  const f = new GeneratedFile();
  const addDef = f.import(`${runtime}/standard.js`, "addDef");
  const defsType = f.import(`${runtime}/standard.js`, "JsonSchemaDefs", { type: true });
  f.print(doc(["The JSON Schema definition of every `$defs` type, for `~standard.jsonSchema` of the Standard Schema modules.", "@module"]));
  for (const def of model.defs) {
    const raw = model.rawDefs.get(schemaKey(def));
    const refs = [...referencedKeys(raw)].map((key) => {
      const target = byKey.get(key);
      if (target === undefined) throw new Error(`${model.file}${def.pointer}: $ref to #/$defs/${key}, which is not a def`);
      return code`${name(target.name)}(defs);`;
    });
    const add = code`${addDef}(defs, ${schemaKey(def)}, ${JSON.stringify(raw)})`;
    const body = refs.length ? block(code`if (${add})`, refs) : code`${add};`;
    const comment = doc([`Adds the definition of \`${schemaKey(def)}\` and every definition it references to \`defs\`.`]);
    f.print(code`${comment}${block(code`export function ${name(def.name)}(defs: ${defsType}): void`, [body])}`);
  }
  return f.toString();
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
that checks with \`validate.X\` and reports every issue, in document order, as \`validate.X(value, { all: true })\` does (a
form shows them all at once); \`${packageName}/<surface>/standard-tolerant\` the same with \`parse.X\`. Hand them to any
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
