/**
 * The recogniser refuses what it does not understand, naming the file and
 * the JSON pointer of the construct; it never degrades silently.
 */
import { describe, expect, it } from "vitest";
import { loadSchemaText, SchemaError } from "../generator/load.js";
import type { VariantNames } from "../generator/naming.js";
import { recogniseSchema } from "../generator/recognise.js";

const NO_NAMES: VariantNames = {
  lookup: (_def, _tag, missing) => missing(),
  missingMessage: (def, tag) => `untitled variant "${tag}" of ${def}: add it to schema/variant-names.json`,
};

function recogniseDefs(defs: Record<string, unknown>, names: VariantNames = NO_NAMES) {
  const text = JSON.stringify({ $defs: defs }, null, 2);
  return recogniseSchema(loadSchemaText(text, "fixture.json"), "v2", "fixture.json", names);
}

function failure(defs: Record<string, unknown>, names?: VariantNames): SchemaError {
  try {
    recogniseDefs(defs, names);
  } catch (error) {
    if (error instanceof SchemaError) return error;
    throw error;
  }
  throw new Error("expected a SchemaError");
}

describe("recogniser errors name file and JSON pointer", () => {
  it.each([
    ["an unknown keyword on a property", { A: { type: "object", properties: { x: { type: "number", multipleOf: 2 } } } }, "/$defs/A/properties/x/multipleOf"],
    ["an unknown type", { A: { type: "object", properties: { x: { type: "decimal" } } } }, "/$defs/A/properties/x/type"],
    ["a type list that is not [T, null]", { A: { type: ["string", "integer"] } }, "/$defs/A/type"],
    ["a $ref to a missing def", { A: { type: "object", properties: { x: { $ref: "#/$defs/Missing" } } } }, "/$defs/A/properties/x/$ref"],
    ["a remote $ref", { A: { $ref: "other.json#/$defs/B" } }, "/$defs/A/$ref"],
    ["additionalProperties: false", { A: { type: "object", properties: {}, additionalProperties: false } }, "/$defs/A/additionalProperties"],
    ["a multi-element allOf", { A: { allOf: [{ type: "string" }, { minLength: 1 }] } }, "/$defs/A/allOf"],
    ["an unknown integer format", { A: { type: "integer", format: "int128" } }, "/$defs/A/format"],
    ["x-deserialize on a def", { A: { type: "string", "x-deserialize-default-on-error": true } }, "/$defs/A"],
    ["skip-invalid-items on a non-array", { A: { type: "object", properties: { x: { type: "string", "x-deserialize-skip-invalid-items": true } } } }, "/$defs/A/properties/x"],
    ["a required property that is not declared", { A: { type: "object", properties: {}, required: ["x"] } }, "/$defs/A/required"],
    ["an untitled untagged union option", { A: { anyOf: [{ type: "string" }, { type: "integer" }] } }, "/$defs/A/anyOf/0"],
  ])("%s", (_what, defs, pointer) => {
    const error = failure(defs);
    expect(error.file).toBe("fixture.json");
    expect(error.pointer).toBe(pointer);
    expect(error.message).toContain(`fixture.json#${pointer}`);
  });

  it("a duplicate tag in one union", () => {
    const tagged = (tag: string) => ({ type: "object", properties: { kind: { type: "string", const: tag } }, required: ["kind"] });
    const names: VariantNames = { ...NO_NAMES, lookup: (def, tag) => `${def}${tag.toUpperCase()}` };
    const error = failure({ A: { anyOf: [tagged("a"), tagged("b"), tagged("a")] } }, names);
    expect(error.pointer).toBe("/$defs/A/anyOf/2");
    expect(error.message).toContain('duplicate tag "a"');
  });

  it("an open branch whose `not` does not list exactly the known tags", () => {
    const tagged = (tag: string) => ({ type: "object", properties: { kind: { type: "string", const: tag } }, required: ["kind"] });
    const other = { title: "other", type: "object", properties: { kind: { type: "string" } }, required: ["kind"], additionalProperties: true, not: { anyOf: [tagged("a")] } };
    const names: VariantNames = { ...NO_NAMES, lookup: (def, tag) => `${def}${tag.toUpperCase()}` };
    const error = failure({ A: { anyOf: [tagged("a"), tagged("b"), other] } }, names);
    expect(error.pointer).toBe("/$defs/A/anyOf/2/not");
  });

  it("an untitled variant missing from the naming table says which table to edit", () => {
    const tagged = { type: "object", properties: { kind: { type: "string", const: "new_thing" } }, required: ["kind"] };
    const error = failure({ A: { anyOf: [tagged] } });
    expect(error.pointer).toBe("/$defs/A/anyOf/0");
    expect(error.message).toContain("schema/variant-names.json");
    expect(error.message).toContain('"new_thing"');
  });

  it("invalid JSON is reported with line and column", () => {
    let error: unknown;
    try {
      loadSchemaText('{\n  "$defs": {\n    "A": { "type": "string", }\n  }\n}', "broken.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchemaError);
    expect((error as SchemaError).position).toEqual({ line: 3, column: 30 });
    expect((error as SchemaError).message).toMatch(/^broken\.json:3:30: invalid JSON/);
  });
});
