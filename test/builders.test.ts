/**
 * Builders (S33): golden cases (test/fixtures/builders: the built value equals
 * the fixture byte for byte, passes validate.X, and the fixture round-trips
 * through parse.X), coverage of every object type and union variant, the
 * builder's immutability, and the typings (required fields in the entry,
 * three-state setters, no setter for required fields, the tag set).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Def, Surface } from "../generator/ir.js";
import { SURFACES } from "../generator/surfaces.js";
import { typeCheck } from "./support/compile.js";
import { loadFixtures } from "./support/fixtures.js";
import { pinnedIR, ROOT } from "./support/ir.js";
import { canonicalJson } from "./support/json.js";
import { ENTRIES, parserOf, validatorOf } from "./support/surfaces.js";

interface BuilderCase {
  readonly builder: string;
  readonly args: readonly unknown[];
  readonly set: readonly (readonly [string, unknown])[];
  readonly type: string;
  readonly expect: unknown;
}

type AnyBuilder = Record<string, (value: unknown) => AnyBuilder> & { build(): unknown };
type Entry = (...args: unknown[]) => AnyBuilder;

function buildersOf(surface: Surface): Record<string, Entry> {
  return (ENTRIES[surface] as unknown as { build: Record<string, Entry> }).build;
}

/** The builders a surface must have, each with the type its value validates as (S33: every object type and union variant). */
function expectedBuilders(surface: Surface): Map<string, string> {
  const out = new Map<string, string>();
  const variantsOf = (def: Def, node: Def["node"]) => {
    if (node.kind !== "tagged") return;
    for (const v of node.variants) out.set(v.name, def.name);
    if (node.other) out.set(node.other.name, def.name);
    if (node.absent) out.set(node.absent.name, def.name);
  };
  for (const def of pinnedIR(surface).defs) {
    if (def.docsIgnore) continue;
    if (def.node.kind === "object" && def.node.mixin?.kind === "tagged") variantsOf(def, def.node.mixin);
    else if (def.node.kind === "object") out.set(def.name, def.name);
    else variantsOf(def, def.node);
  }
  return out;
}

for (const fixture of loadFixtures<BuilderCase>("builders")) {
  describe(`${fixture.rule}: golden builders`, () => {
    for (const c of fixture.cases) {
      for (const surface of c.surfaces) {
        it(`${fixture.rule} ${surface} build.${c.builder}: ${c.name}`, () => {
          const entry = buildersOf(surface)[c.builder];
          if (!entry) throw new Error(`no build.${c.builder} on ${surface}`);
          let builder = entry(...c.args);
          for (const [name, value] of c.set) builder = builder[name]!(value === "<undefined>" ? undefined : value);
          const built = builder.build();
          expect(canonicalJson(built)).not.toContain("<undefined>");
          expect(JSON.stringify(built)).toBe(JSON.stringify(c.expect));
          expect(validatorOf(surface, c.type)(built).ok).toBe(true);
          const parsed = parserOf(surface, c.type)(c.expect);
          expect(parsed.ok && canonicalJson(parsed.value)).toBe(canonicalJson(c.expect));
          expect(Object.keys(Object.prototype)).toEqual([]);
        });
      }
    }
  });
}

describe("S33: builders exist for every object type and union variant", () => {
  for (const { surface } of SURFACES) {
    it(`S33 ${surface}: one build.X per object def and variant; entries without arguments build a valid value`, () => {
      const builders = buildersOf(surface);
      const expected = expectedBuilders(surface);
      expect(Object.keys(builders).sort()).toEqual([...expected.keys()].sort());
      for (const [name, type] of expected) {
        const entry = builders[name]!;
        if (entry.length > 0) continue;
        const built = entry().build();
        expect(validatorOf(surface, type)(built).ok, `build.${name}()`).toBe(true);
      }
    });
  }
});

describe("S33: builders are immutable values", () => {
  const { build } = ENTRIES["v2/unstable"];

  it("S33 a setter returns a new builder; the base stays reusable as a template", () => {
    const base = build.ToolCallUpdate("t1").kind("edit");
    const a = base.title("A").build();
    const b = base.title("B").status("completed").build();
    expect(a).toEqual({ toolCallId: "t1", kind: "edit", title: "A" });
    expect(b).toEqual({ toolCallId: "t1", title: "B", kind: "edit", status: "completed" });
    expect(base.build()).toEqual({ toolCallId: "t1", kind: "edit" });
  });

  it("S33 build() returns a fresh plain object each time", () => {
    const builder = build.SessionInfoUpdate().title("T");
    const first = builder.build();
    expect(builder.build()).not.toBe(first);
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
  });

  it("S34 a __proto__ setter value and raw keys stay plain data", () => {
    const built = build.ToolCallUpdate("t").rawInput({ ["__proto__"]: { admin: true } })._meta(JSON.parse('{"__proto__": 1}')).build();
    expect(Object.getPrototypeOf(built)).toBe(Object.prototype);
    expect(canonicalJson(built)).toBe('{"_meta":{"__proto__":1},"rawInput":{"__proto__":{"admin":true}},"toolCallId":"t"}');
    expect(Object.keys(Object.prototype)).toEqual([]);
  });
});

describe("S33: builder typings", () => {
  const WORK = join(ROOT, ".vitest-tmp", "builders");
  afterAll(() => rmSync(WORK, { recursive: true, force: true }));

  it("S33 required fields, three-state setters, tags and results type-check as specified", () => {
    const file = join(WORK, "cases.ts");
    mkdirSync(WORK, { recursive: true });
    writeFileSync(
      file,
      `import { build, type SubagentUpdate, type SessionUpdate, type ToolCallUpdate } from "../../generated/src/v2/unstable/index.js";

// Seeds: SubagentUpdate::new(session_id).title(..).state(..), AgentThought::new(id).content(..).meta(..)
export const child: SubagentUpdate = build.SubagentUpdate("c1").title("Researcher").state({ state: "running" }).build();
export const thought = build.SessionUpdateAgentThought("m1").content([{ type: "text", text: "hm" }])._meta({ k: 1 }).build();
export const tag: "agent_thought" = thought.sessionUpdate;
export const asUpdate: SessionUpdate = thought;

// Three-state setters take a value, null (clear) or undefined (omit).
export const three: ToolCallUpdate = build.ToolCallUpdate("t").title("x").title(null).title(undefined).build();
// @ts-expect-error a setter takes the field's type
build.ToolCallUpdate("t").title(5);
// @ts-expect-error required fields are entry arguments, not setters
build.ToolCallUpdate("t").toolCallId("u");
// @ts-expect-error the entry requires the required fields
build.ToolCallUpdate();
// @ts-expect-error the tag is set by the variant builder
build.SessionUpdateAgentThought("m1").sessionUpdate("user_message");

// Custom variants: a vendor tag plus fields; a known tag is not a custom tag.
export const custom: SessionUpdate = build.SessionUpdateOther("_acme/event", { anything: [1] }).build();
// @ts-expect-error a known tag is not a custom tag
build.SessionUpdateOther("agent_thought", {});

// A union-typed part is the last argument; its keys the builder sets are excluded.
export const state: SessionUpdate = build.SessionUpdateStateUpdate({ state: "idle", stopReason: "end_turn" }).build();
export const idle = build.StateUpdateIdle({ stopReason: "cancelled" }).background([]).build();
`,
    );
    expect(typeCheck([file], "nodenext")).toEqual([]);
  }, 60_000);
});
