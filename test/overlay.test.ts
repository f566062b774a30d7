/**
 * The drift check of the semantics overlay (schema/semantics.json): a schema
 * change the reviewed table does not cover fails generation with a
 * `SchemaError` that names the type and the table, and nothing is emitted.
 * Cases run the pipeline on modified copies of the pinned v2 schemas.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../generator/generate.js";
import type { Surface } from "../generator/ir.js";
import { SchemaError } from "../generator/load.js";
import { SEMANTICS_FILE } from "../generator/overlay.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";

type Json = Record<string, any>;

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of the pinned schema directory (without the lock) with `edit` applied to one schema and, optionally, the table. */
function modifiedCopy(file: string, edit: (schema: Json) => void, editTable?: (table: Json) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-overlay-"));
  dirs.push(dir);
  cpSync(SCHEMA_DIR, dir, { recursive: true });
  rmSync(join(dir, "lock.json"));
  const rewrite = (path: string, change: (json: Json) => void) => {
    const json = JSON.parse(readFileSync(path, "utf8")) as Json;
    change(json);
    writeFileSync(path, JSON.stringify(json, null, 2));
  };
  rewrite(join(dir, file), edit);
  if (editTable) rewrite(join(dir, SEMANTICS_FILE), editTable);
  return dir;
}

/** The SchemaError of generating `surface` from `dir`. */
function driftError(dir: string, surface: Surface): SchemaError {
  try {
    generate({ schemaDir: dir, surfaces: [surface] });
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error("expected generation to fail");
}

const META_PATCH =
  "Omitted leaves the stored metadata unchanged. `null` clears it. An object patches the stored metadata by top-level key.";

/** A new upsert type in the style of the v2 upserts, plus its SessionUpdate variant. */
function addWidgetUpdate(schema: Json, withVariant: boolean): void {
  schema.$defs.WidgetUpdate = {
    description: "A widget upsert. Only `widgetId` is required. Omitted fields leave the stored value unchanged.",
    type: "object",
    properties: {
      widgetId: { type: "string" },
      label: { type: ["string", "null"], description: "Omission leaves the label unchanged, `null` unsets it." },
      _meta: { type: ["object", "null"], additionalProperties: true, description: META_PATCH },
    },
    required: ["widgetId"],
  };
  if (withVariant) {
    const variants = schema.$defs.SessionUpdate.anyOf ?? schema.$defs.SessionUpdate.oneOf;
    variants.splice(0, 0, {
      title: "WidgetUpdate",
      type: "object",
      properties: { sessionUpdate: { type: "string", const: "widget_update" } },
      required: ["sessionUpdate"],
      allOf: [{ $ref: "#/$defs/WidgetUpdate" }],
    });
    const other = variants.find((v: Json) => v.not);
    other.not.anyOf.push({ type: "object", properties: { sessionUpdate: { type: "string", const: "widget_update" } }, required: ["sessionUpdate"] });
  }
}

describe("S5 drift: the overlay must cover what the schema prose marks", () => {
  it("the pinned schemas and the reviewed table agree on every surface", () => {
    expect(() => generate({ schemaDir: SCHEMA_DIR })).not.toThrow();
  });

  it("S5: a new upsert type (with its SessionUpdate variant) fails, naming the type and the table", () => {
    const error = driftError(modifiedCopy("v2/schema.json", (s) => addWidgetUpdate(s, true)), "v2");
    expect(error.pointer).toBe("/$defs/WidgetUpdate");
    expect(error.message).toContain("WidgetUpdate reads as a patch type");
    expect(error.message).toContain(`surfaces["v2"].upserts["WidgetUpdate"]`);
    expect(error.message).toContain(SEMANTICS_FILE);
  });

  it("S5: once the table lists the upsert, the new SessionUpdate variant still needs a route", () => {
    const dir = modifiedCopy(
      "v2/schema.json",
      (s) => addWidgetUpdate(s, true),
      (t) => (t.surfaces.v2.upserts.WidgetUpdate = { rule: "S5", key: "widgetId", fields: { label: "replace", _meta: "meta-patch" } }),
    );
    const error = driftError(dir, "v2");
    expect(error.message).toContain(`the SessionUpdate variant "widget_update" has no route`);
    expect(error.message).toContain(`surfaces["v2"].session["widget_update"]`);
  });

  it("S5: with an upsert entry and a route the new type generates apply.WidgetUpdate", () => {
    const dir = modifiedCopy(
      "v2/schema.json",
      (s) => addWidgetUpdate(s, true),
      (t) => {
        t.surfaces.v2.upserts.WidgetUpdate = { rule: "S5", key: "widgetId", fields: { label: "replace", _meta: "meta-patch" } };
        t.surfaces.v2.session.widget_update = { op: "upsert", slot: "widgets" };
        t.maps.push("widgets");
      },
    );
    const files = generate({ schemaDir: dir, surfaces: ["v2"] });
    expect(files.find((f) => f.path === "src/v2/apply.ts")!.content).toContain("export function WidgetUpdate(");
    expect(files.find((f) => f.path === "src/v2/session.ts")!.content).toContain("readonly widgets: ReadonlyMap<string, T.WidgetUpdate>;");
  });

  it("S1: a new field on an upsert type needs a reviewed rule", () => {
    const dir = modifiedCopy("v2/schema.json", (s) => (s.$defs.TerminalUpdate.properties.pid = { type: ["integer", "null"] }));
    expect(driftError(dir, "v2").message).toContain("the schema field TerminalUpdate.pid has no rule in the table");
  });

  it("S4: a table rule the prose contradicts fails, quoting the prose", () => {
    const dir = modifiedCopy("v2/schema.json", () => {}, (t) => (t.surfaces.v2.upserts.ToolCallUpdate.fields.kind = "replace"));
    const error = driftError(dir, "v2");
    expect(error.pointer).toBe("/$defs/ToolCallUpdate");
    expect(error.message).toContain('ToolCallUpdate.kind is "replace" in the table, but the schema prose says "reset to "other"" ("`null` resets it to `other`")');
  });

  it("S3: the collection rule follows the prose; the additionalDirectories exception has none", () => {
    const dir = modifiedCopy("v1/schema.unstable.json", () => {}, (t) => (t.surfaces["v1/unstable"].upserts.SessionMessage.fields.content = "replace"));
    expect(driftError(dir, "v1/unstable").message).toContain('SessionMessage.content is "replace" in the table, but the schema prose says "collection" ("`null` or `[]`")');
  });

  it("S6: the _meta rule follows the patch wording", () => {
    const dir = modifiedCopy("v2/schema.json", (s) => (s.$defs.UserMessage.properties._meta.description = "Omitted and `null` are equivalent and mean no metadata."));
    expect(driftError(dir, "v2").message).toContain('UserMessage._meta is "meta-patch" in the table, but the schema prose says "latest"');
  });

  it("S5: a listed upsert whose prose no longer marks a patch fails", () => {
    const dir = modifiedCopy("v2/schema.json", (s) => {
      const usage = s.$defs.UsageUpdate;
      usage.properties.cost.description = "Cumulative session cost.";
    });
    expect(driftError(dir, "v2").message).toContain("the table lists UsageUpdate as a patch type, but its schema prose no longer says so");
  });

  it("a removed SessionUpdate variant leaves a route the schema does not have", () => {
    const dir = modifiedCopy("v2/schema.json", (s) => {
      const union = s.$defs.SessionUpdate;
      const variants: Json[] = union.anyOf ?? union.oneOf;
      const isNotice = (v: Json) => v.properties?.sessionUpdate?.const === "notice";
      variants.splice(variants.findIndex(isNotice), 1);
      const other = variants.find((v) => v.not)!;
      other.not.anyOf = other.not.anyOf.filter((v: Json) => !isNotice(v));
    });
    expect(driftError(dir, "v2").message).toContain(`the table routes "notice", which is not a variant of SessionUpdate`);
  });
});

const FIXTURE_2_0_0 = join(ROOT, "test/fixtures/schemas/2.0.0");

/** A copy of the SDK 2.0.0 fixture (without its lock) with `editTable` applied to its reviewed table. */
function fixtureCopy(editTable: (table: Json) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "acp-overlay-2.0.0-"));
  dirs.push(dir);
  cpSync(FIXTURE_2_0_0, dir, { recursive: true });
  rmSync(join(dir, "lock.json"));
  const path = join(dir, SEMANTICS_FILE);
  const table = JSON.parse(readFileSync(path, "utf8")) as Json;
  editTable(table);
  writeFileSync(path, JSON.stringify(table, null, 2));
  return dir;
}

describe("routes name only what the schema has, and drop no chunk field", () => {
  it("S19: a snapshot stored under a key its value does not require fails (SDK 0.29.0 plans use `id`)", () => {
    const dir = modifiedCopy("v2/schema.json", () => {}, (t) => (t.surfaces.v2.session.plan_update.key = "id"));
    const error = driftError(dir, "v2");
    expect(error.pointer).toBe("/$defs/PlanUpdate");
    expect(error.message).toContain(`PlanUpdate.plan is stored under its "id", which PlanItems does not require`);
    expect(error.message).toContain(`surfaces["v2"].session["plan_update"]`);
  });

  it("S17: a chunk field the append route does not route fails (SDK 2.0.0 SessionMessageChunk)", () => {
    const dir = fixtureCopy((t) => delete t.surfaces["v2/unstable"].session.session_message_chunk.patches);
    const error = driftError(dir, "v2/unstable");
    expect(error.pointer).toBe("/$defs/SessionMessageChunk");
    expect(error.message).toContain("the chunk field SessionMessageChunk.senderSessionId is not routed (list it in `patches`");
  });

  it("`patches` needs an entity and fields both defs declare", () => {
    const noEntity = modifiedCopy("v1/schema.json", () => {}, (t) => (t.surfaces.v1.session.user_message_chunk.patches = ["_meta"]));
    expect(driftError(noEntity, "v1").message).toContain("`patches` needs an `entity` whose rules apply");
    const unknown = fixtureCopy((t) => t.surfaces["v2/unstable"].session.session_message_chunk.patches.push("senderMessageId"));
    expect(driftError(unknown, "v2/unstable").message).toContain(`SessionMessageChunk has no field "senderMessageId"`);
  });

  it("S17 (SDK 2.0.0): a chunk's `patches` fields update the message by its own rule (keep), then the content appends", async () => {
    const out = mkdtempSync(join(tmpdir(), "acp-overlay-out-"));
    dirs.push(out);
    for (const file of generate({ schemaDir: FIXTURE_2_0_0, surfaces: ["v2/unstable"] })) {
      mkdirSync(dirname(join(out, file.path)), { recursive: true });
      writeFileSync(join(out, file.path), file.content);
    }
    const { emptySessionState, reduceSession } = await import(join(out, "src/v2/unstable/index.ts"));
    const text = (t: string) => ({ type: "text", text: t });
    const chunk = (fields: Json) => ({ sessionUpdate: "session_message_chunk", messageId: "m", ...fields });
    let state = emptySessionState();
    state = reduceSession(state, chunk({ senderSessionId: "a", content: text("1") }));
    state = reduceSession(state, chunk({ senderSessionId: null, recipientSessionId: "b", content: text("2") }));
    state = reduceSession(state, chunk({ content: text("3") }));
    expect(state.sessionMessages.get("m")).toEqual({ messageId: "m", senderSessionId: "a", recipientSessionId: "b", content: [text("1"), text("2"), text("3")] });
    state = reduceSession(state, { sessionUpdate: "session_message", messageId: "m", senderSessionId: "c", content: [] });
    expect(state.sessionMessages.get("m")).toEqual({ messageId: "m", senderSessionId: "c", recipientSessionId: "b", content: [] });
  });
});
