/**
 * Type-level tests of the generated types, on every surface and for both
 * module modes. Each expected error is a `@ts-expect-error` line (an unused
 * directive is itself an error) and has a compiling twin next to it, so no
 * case can pass by accident. Cases are derived from the IR of the pinned
 * schema where the surfaces differ (which tags exist, which unions are open).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Def, EnumNode, Surface, TaggedUnionNode } from "../generator/ir.js";
import { SURFACES } from "../generator/surfaces.js";
import { MODULE_MODES, typeCheck } from "./support/compile.js";
import { pinnedIR, pinnedSchema, ROOT } from "./support/ir.js";

const WORK = join(ROOT, ".vitest-tmp", "types");

/** A SessionUpdate variant with one required string-typed field, per surface. */
const NARROW: Record<Surface, { tag: string; field: string; fieldType: string; valid: string }> = {
  v1: { tag: "agent_thought_chunk", field: "content", fieldType: "acp.ContentBlock", valid: `{ type: "text", text: "hi" }` },
  "v1/unstable": { tag: "agent_thought_chunk", field: "content", fieldType: "acp.ContentBlock", valid: `{ type: "text", text: "hi" }` },
  v2: { tag: "agent_thought", field: "messageId", fieldType: "acp.MessageId", valid: `"m1"` },
  "v2/unstable": { tag: "agent_thought", field: "messageId", fieldType: "acp.MessageId", valid: `"m1"` },
};

function defNamed(defs: readonly Def[], name: string): Def {
  const def = defs.find((d) => d.name === name);
  if (!def) throw new Error(`no def ${name}`);
  return def;
}

/** The test module for one surface. */
function surfaceCases(surface: Surface): string {
  const ir = pinnedIR(surface);
  const sessionUpdate = defNamed(ir.defs, "SessionUpdate").node as TaggedUnionNode;
  const open = sessionUpdate.other !== undefined;
  const n = NARROW[surface];
  const openEnum = ir.defs.find((d) => d.node.kind === "enum" && d.node.open && d.node.base === "string")!;
  const member = JSON.stringify((openEnum.node as EnumNode).members[0]!.value);
  const toolKindOpen = (defNamed(ir.defs, "ToolKind").node as EnumNode).open !== undefined;
  const allDefs = Object.keys(pinnedSchema(surface).$defs);
  const depth = surface.split("/").length;
  const index = `${"../".repeat(depth + 2)}generated/src/${surface}/index.js`;
  const knownCases = sessionUpdate.variants.map((v) => `    case ${JSON.stringify(v.tagValue)}:`).join("\n");
  return `import type * as acp from ${JSON.stringify(index)};

// Every $defs key is exported under its own name (${allDefs.length} on ${surface}).
export type AllDefs = [
${allDefs.map((name) => `  acp.${name},`).join("\n")}
];

// Narrowing: a switch on the tag narrows to the variant's own fields.
export function narrow(u: acp.SessionUpdate): void {
  switch (u.sessionUpdate) {
    case ${JSON.stringify(n.tag)}: {
      const value: ${n.fieldType} = u.${n.field};
      void value;
      break;
    }
  }
  // @ts-expect-error without narrowing the field is not known on the union
  void u.${n.field};
}

// The default branch of an exhaustive switch sees ${open ? "the custom (unknown-tag) variant" : "nothing: the union is closed"}.
export function exhaustive(u: acp.SessionUpdate): string {
  switch (u.sessionUpdate) {
${knownCases}
      return "known";
    default: {
      ${open ? "const rest: acp.SessionUpdateOther = u;\n      return rest.sessionUpdate;" : "const rest: never = u;\n      return rest;"}
    }
  }
}

// A vendor tag with arbitrary extra fields is ${open ? "assignable to the open union" : "rejected by the closed union (S22)"}.
${open ? "" : "// @ts-expect-error closed union\n"}export const vendor: acp.SessionUpdate = { sessionUpdate: "_vendor.example", anything: [1, { a: 2 }] };
export const known: acp.SessionUpdate = { sessionUpdate: ${JSON.stringify(n.tag)}, ${n.field}: ${n.valid} };
// @ts-expect-error known tag with a wrong field type
export const wrongField: acp.SessionUpdate = { sessionUpdate: ${JSON.stringify(n.tag)}, ${n.field}: 42 };
// @ts-expect-error known tag with a missing required field
export const missingField: acp.SessionUpdate = { sessionUpdate: ${JSON.stringify(n.tag)} };

// Open string enum (${openEnum.name}): literal members survive for autocompletion, any string is accepted.
export const enumKnown: acp.${openEnum.name} = ${member};
export const enumLiteral: Extract<acp.${openEnum.name}, ${member}> = ${member};
export const enumCustom: acp.${openEnum.name} = "x-custom-value";
// @ts-expect-error not a string
export const enumWrong: acp.${openEnum.name} = 42;

// ToolKind is ${toolKindOpen ? "open" : "closed (S28: v1)"}.
export const kindKnown: acp.ToolKind = "read";
${toolKindOpen ? "" : "// @ts-expect-error closed enum\n"}export const kindCustom: acp.ToolKind = "x-custom-kind";

// Three-state fields: absent, null and a value are distinct; undefined is not a value.
export const titleAbsent: acp.ToolCallUpdate = { toolCallId: "t" };
export const titleNull: acp.ToolCallUpdate = { toolCallId: "t", title: null };
export const titleValue: acp.ToolCallUpdate = { toolCallId: "t", title: "Read file" };
// @ts-expect-error exactOptionalPropertyTypes: undefined is neither absent nor null
export const titleUndefined: acp.ToolCallUpdate = { toolCallId: "t", title: undefined };
`;
}

describe("generated types (type-level)", () => {
  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  const files = SURFACES.map(({ surface }) => {
    const file = join(WORK, ...surface.split("/"), "cases.ts");
    return { surface, file };
  });

  for (const mode of MODULE_MODES) {
    it(`narrowing, vendor tags, open enums, three-state fields and all exports compile as specified (module ${mode})`, () => {
      for (const { surface, file } of files) {
        mkdirSync(join(file, ".."), { recursive: true });
        writeFileSync(file, surfaceCases(surface));
      }
      expect(typeCheck(files.map((f) => f.file), mode)).toEqual([]);
    }, 60_000);
  }

  it("the generated tree compiles on its own under strict settings (both module modes)", () => {
    const entries = SURFACES.map(({ surface }) => join(ROOT, "generated", "src", ...surface.split("/"), "index.ts"));
    for (const mode of MODULE_MODES) expect(typeCheck(entries, mode)).toEqual([]);
  }, 60_000);
});
