/**
 * Reading a field that only some variants of an open union have (issue 9,
 * item 6c). The custom variant (`XOther`) may carry any key with any value,
 * so `"field" in u` keeps it and the field reads as `unknown`: that is the
 * truth about the wire, and the types say so. What narrows usefully is the
 * tag (`switch` / `===`), or a test of the value itself. Each expected error
 * is a `@ts-expect-error` line with a compiling twin beside it; the union and
 * field per surface are taken from the IR (every surface has open unions:
 * `SessionUpdate` on v2, `StateUpdate` on v1).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Def, Node, SchemaIR, Surface, TaggedUnionNode, TaggedVariant } from "../generator/ir.js";
import { SURFACES } from "../generator/surfaces.js";
import { typeCheck } from "./support/compile.js";
import { pinnedIR, ROOT } from "./support/ir.js";

const WORK = join(ROOT, ".vitest-tmp", "types-open-union");

/** An open union of the surface, a variant of it, and a required, typed field of that variant the union does not share. */
interface Case {
  readonly union: Def & { readonly node: TaggedUnionNode };
  readonly variant: TaggedVariant;
  readonly field: string;
}

/** The object def a variant's payload refers to, if any. */
function payloadObject(ir: SchemaIR, node: Node | undefined) {
  const target = node?.kind === "ref" ? ir.defs.find((d) => d.name === node.name)?.node : node;
  return target?.kind === "object" ? target : undefined;
}

/** `SessionUpdate` when it is open, else the first open union; the first variant with a required field that is not untyped JSON. */
function caseOf(ir: SchemaIR): Case {
  const open = ir.defs.filter((d): d is Def & { node: TaggedUnionNode } => d.node.kind === "tagged" && d.node.other !== undefined);
  const union = open.find((d) => d.name === "SessionUpdate") ?? open[0];
  if (!union) throw new Error(`${ir.surface} has no open union`);
  for (const variant of union.node.variants) {
    const field = payloadObject(ir, variant.payload)?.fields.find((f) => f.required && f.name !== union.node.tag && f.node.kind !== "json");
    if (field) return { union, variant, field: field.name };
  }
  throw new Error(`${union.name} has no variant with a required typed field`);
}

/** The cases module of one surface. */
function surfaceCases(surface: Surface): string {
  const { union, variant, field } = caseOf(pinnedIR(surface));
  const index = `${"../".repeat(surface.split("/").length + 2)}generated/src/${surface}/index.js`;
  const tag = union.node.tag;
  const fieldType = `acp.${variant.name}[${JSON.stringify(field)}]`;
  const read = `u[${JSON.stringify(field)}]`;
  return `import type * as acp from ${JSON.stringify(index)};

// ${union.name} is open: its custom variant ${union.node.other!.name} may carry "${field}" with any value.
export function byIn(u: acp.${union.name}): void {
  if (${JSON.stringify(field)} in u) {
    // @ts-expect-error \`in\` keeps the custom variant, so the field is unknown
    const value: ${fieldType} = ${read};
    void value;
  }
}

// The twin that narrows: the tag.
export function byTag(u: acp.${union.name}): void {
  if (u.${tag} === ${JSON.stringify(variant.tagValue)}) {
    const value: ${fieldType} = ${read};
    void value;
  }
}

// The twin for any variant that has the key: test the value itself.
export function byValue(u: acp.${union.name}): void {
  if (${JSON.stringify(field)} in u && typeof ${read} === "string") {
    const value: string = ${read};
    void value;
  }
  // @ts-expect-error without the \`in\` test the key is not known on the union
  void ${read};
}

// The custom variant really may carry the key with another type: this is assignable.
export const custom: acp.${union.name} = { ${tag}: "_vendor.example", ${JSON.stringify(field)}: 42 };
`;
}

describe("open unions: reading a field that only some variants have (type-level)", () => {
  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  const files = SURFACES.map(({ surface }) => ({ surface, file: join(WORK, ...surface.split("/"), "cases.ts") }));

  // Narrowing does not depend on module resolution (types.test.ts compiles the tree in both modes), so one mode suffices.
  it("`in` reads unknown, the tag and a value test narrow (module nodenext, every surface)", () => {
    for (const { surface, file } of files) {
      mkdirSync(join(file, ".."), { recursive: true });
      writeFileSync(file, surfaceCases(surface));
    }
    expect(typeCheck(files.map((f) => f.file), "nodenext")).toEqual([]);
  }, 60_000);
});
