/**
 * Differential oracle: for every plain object def (no ACP idiom: no unions,
 * no enums, no tags), json-schema-to-typescript's type and ours must be
 * mutually assignable. A negative control per def (theirs with one required
 * field made optional must NOT be mutually assignable) proves the check bites.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile } from "json-schema-to-typescript";
import { afterAll, describe, expect, it } from "vitest";
import type { Def, Node, SchemaIR } from "../generator/ir.js";
import { SURFACES } from "../generator/surfaces.js";
import { typeCheck } from "./support/compile.js";
import { pinnedIR, pinnedSchema, ROOT } from "./support/ir.js";

const WORK = join(ROOT, ".vitest-tmp", "oracle");

/**
 * Scalar-only nodes, following refs only into scalar aliases. Untyped JSON
 * values (`{}`, e.g. rawInput) are an ACP idiom: json-schema-to-typescript
 * types them as objects, while JSON Schema (and we) accept any value.
 */
function isPlain(node: Node, defs: ReadonlyMap<string, Def>): boolean {
  switch (node.kind) {
    case "string":
    case "integer":
    case "number":
    case "boolean":
    case "null":
    case "const":
      return true;
    case "nullable":
      return isPlain(node.inner, defs);
    case "array":
      return isPlain(node.items, defs);
    case "record":
      return node.values.kind === "json" || isPlain(node.values, defs);
    case "ref": {
      const target = defs.get(node.name)!.node;
      return target.kind !== "ref" && target.kind !== "object" && isPlain(target, defs);
    }
    default:
      return false;
  }
}

function plainObjectDefs(ir: SchemaIR): Def[] {
  const byName = new Map(ir.defs.map((d) => [d.name, d]));
  return ir.defs.filter(
    (d) => d.node.kind === "object" && !d.node.mixin && !d.node.keepsUnknown && d.node.fields.length > 0 && d.node.fields.every((f) => isPlain(f.node, byName)),
  );
}

function refsOf(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => refsOf(v, into));
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") into.add(v.slice("#/$defs/".length));
      else refsOf(v, into);
    }
  }
  return into;
}

describe("differential oracle: json-schema-to-typescript", () => {
  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  it("plain object defs are mutually assignable with json-schema-to-typescript's types on every surface", async () => {
    const files: string[] = [];
    let compared = 0;
    for (const { surface } of SURFACES) {
      const raw = pinnedSchema(surface).$defs;
      const defs = plainObjectDefs(pinnedIR(surface));
      const depth = surface.split("/").length;
      const parts = [`import type * as ours from ${JSON.stringify(`${"../".repeat(depth + 2)}generated/src/${surface}/index.js`)};`];
      parts.push("type Mutual<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;");
      for (const def of defs) {
        const schema = raw[def.name] as Record<string, unknown>;
        const referenced = Object.fromEntries([...refsOf(schema, new Set())].map((name) => [name, raw[name]]));
        const theirs = await compile({ ...schema, $defs: referenced, title: def.name } as never, def.name, {
          bannerComment: "",
          additionalProperties: false,
          declareExternallyReferenced: true,
          format: false,
          // Ours types `minItems` arrays as plain arrays (as the official SDK does), not as tuples.
          ignoreMinAndMaxItems: true,
        });
        const ns = `Theirs${compared}`;
        parts.push(`namespace ${ns} {\n${theirs}\n}`);
        parts.push(`export const mutual${compared}: Mutual<ours.${def.name}, ${ns}.${def.name}> = true;`);
        const firstRequired = def.node.kind === "object" ? def.node.fields.find((f) => f.required) : undefined;
        if (firstRequired) {
          parts.push(`// @ts-expect-error negative control: "${firstRequired.name}" made optional on their side`);
          parts.push(`export const control${compared}: Mutual<ours.${def.name}, Omit<${ns}.${def.name}, ${JSON.stringify(firstRequired.name)}> & Partial<Pick<${ns}.${def.name}, ${JSON.stringify(firstRequired.name)}>>> = true;`);
        }
        compared++;
      }
      const file = join(WORK, ...surface.split("/"), "oracle.ts");
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, parts.join("\n\n") + "\n");
      files.push(file);
    }
    expect(compared).toBeGreaterThan(50);
    expect(typeCheck(files, "nodenext")).toEqual([]);
  }, 120_000);
});
