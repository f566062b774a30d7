/**
 * Standard Schema (`acp-bindings/<surface>/standard`, `.../standard-tolerant`):
 * every `$defs` type of every surface has a Standard Schema V1 object whose
 * verdict is `validate.X`'s (strict) or `parse.X`'s (tolerant), whose issues
 * carry Standard paths and our JSON pointers, and whose Standard JSON Schema is
 * a self-contained 2020-12 document that ajv agrees with. Used in a real
 * consumer: a hono app with `@hono/standard-validator`. Type-level: assignable
 * to `@standard-schema/spec`'s interfaces, with the inferred output type.
 */
import { sValidator } from "@hono/standard-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import * as v1Standard from "../generated/src/v1/standard/strict.js";
import * as v1UnstableStandard from "../generated/src/v1/unstable/standard/strict.js";
import * as v2Standard from "../generated/src/v2/standard/strict.js";
import * as v2Tolerant from "../generated/src/v2/standard/tolerant.js";
import * as v2UnstableStandard from "../generated/src/v2/unstable/standard/strict.js";
import { pathSegments } from "../generator/runtime/standard.js";
import type { Surface } from "../generator/ir.js";
import { SURFACES } from "../generator/surfaces.js";
import { typeCheck } from "./support/compile.js";
import { pinnedSchema, ROOT } from "./support/ir.js";
import { readmeBlocks } from "./docs-readme.js";
import { run } from "./consumer/harness.js";
import { parserOf, validatorOf } from "./support/surfaces.js";

type AnyStandard = {
  "~standard": {
    version: number;
    vendor: string;
    validate: (value: unknown) => { value?: unknown; issues?: readonly { message: string; path: readonly (string | number)[]; pointer: string }[] };
    jsonSchema: { input: (o: { target: string }) => Record<string, unknown>; output: (o: { target: string }) => Record<string, unknown> };
  };
};
const STRICT: Record<Surface, Record<string, unknown>> = { v1: v1Standard, "v1/unstable": v1UnstableStandard, v2: v2Standard, "v2/unstable": v2UnstableStandard };
const schemaOf = (surface: Surface, type: string) => STRICT[surface][type] as AnyStandard;
/** `validate.X(value, { all: true })`'s issues as [pointer, message] pairs: what a strict Standard schema reports. */
function allIssues(surface: Surface, type: string, value: unknown): [string, string][] {
  const all = validatorOf(surface, type) as (value: unknown, options: { all: boolean }) => { issues?: { path: string; message: string }[] };
  return (all(value, { all: true }).issues ?? []).map((i) => [i.path, i.message]);
}

const PROMPT = { sessionId: "s1", prompt: [{ type: "text", text: "hi" }] };
const BAD_PROMPT = { sessionId: "s1", prompt: [{ type: "text", text: 5 }] };
/** A body with three errors, in document order: a session id that is no string, a text that is no string, a block without its text. */
const THREE_ERRORS = { sessionId: 7, prompt: [{ type: "text", text: 5 }, { type: "text" }] };
/** Values of every shape, to compare verdicts on each type. */
const SAMPLES: unknown[] = [null, 0, -1, 2 ** 40, "x", true, [], {}, PROMPT, BAD_PROMPT, THREE_ERRORS, { type: "text", text: "t" }, { sessionId: "s", update: { sessionUpdate: "plan", entries: [] } }];

describe.each(SURFACES.map((s) => s.surface))("%s/standard", (surface) => {
  const defs = Object.keys(pinnedSchema(surface).$defs);

  it("has one Standard Schema per $defs type, whose verdict and value are validate.X's", () => {
    expect(Object.keys(STRICT[surface]).sort()).toEqual([...defs].sort());
    for (const type of defs) {
      const std = schemaOf(surface, type)["~standard"];
      expect(std.version).toBe(1);
      expect(std.vendor).toBe("acp-bindings");
      for (const sample of SAMPLES) {
        const expected = validatorOf(surface, type)(sample);
        const got = std.validate(sample);
        if (expected.ok) expect(got).toEqual({ value: sample });
        else expect(got.issues?.map((i) => [i.pointer, i.message])).toEqual(allIssues(surface, type, sample));
      }
    }
  });

  it("gives each type a self-contained JSON Schema 2020-12 document", () => {
    for (const type of defs) {
      const doc = schemaOf(surface, type)["~standard"].jsonSchema.input({ target: "draft-2020-12" });
      expect(doc.$ref).toBe(`#/$defs/${type}`);
      const present = new Set(Object.keys(doc.$defs as object));
      expect(present.has(type)).toBe(true);
      for (const ref of JSON.stringify(doc).matchAll(/"\$ref":"#\/\$defs\/([^"]+)"/g)) expect(present, `${type} -> ${ref[1]}`).toContain(ref[1]);
    }
  });
});

describe("strict issues", () => {
  it("reports every issue of a body, in document order, as validate.X(v, { all: true }) does (a form shows them all at once)", () => {
    const result = schemaOf("v2", "PromptRequest")["~standard"].validate(THREE_ERRORS);
    expect(result.issues?.map((i) => i.pointer)).toEqual(["/sessionId", "/prompt/0/text", "/prompt/1/text"]);
    expect(result.issues?.map((i) => i.path)).toEqual([["sessionId"], ["prompt", 0, "text"], ["prompt", 1, "text"]]);
    expect(result.issues?.map((i) => [i.pointer, i.message])).toEqual(allIssues("v2", "PromptRequest", THREE_ERRORS));
  });
});

describe("Standard JSON Schema", () => {
  it("agrees with validate.X when compiled alone by ajv", () => {
    for (const type of ["PromptRequest", "UpdateSessionNotification", "ContentBlock", "ToolCallUpdate"]) {
      const doc = schemaOf("v2", type)["~standard"].jsonSchema.output({ target: "draft-2020-12" });
      const check = new Ajv2020({ strict: false, validateFormats: false }).compile(doc);
      for (const sample of SAMPLES) expect(check(sample), `${type} ${JSON.stringify(sample)}`).toBe(validatorOf("v2", type)(sample).ok);
    }
  });

  it("returns a fresh document on every call, and throws for a target it does not support (as the spec asks)", () => {
    const std = schemaOf("v2", "PromptRequest")["~standard"];
    const first = std.jsonSchema.input({ target: "draft-2020-12" });
    (first.$defs as Record<string, unknown>).PromptRequest = "mutated";
    expect(std.jsonSchema.input({ target: "draft-2020-12" }).$defs).toHaveProperty("PromptRequest.properties");
    expect(() => std.jsonSchema.input({ target: "draft-07" })).toThrow(/not supported/);
  });
});

describe("standard-tolerant", () => {
  it("answers with parse.X: unknown properties dropped, a fresh value", () => {
    const input = { ...PROMPT, extra: 1 };
    const result = (v2Tolerant.PromptRequest as unknown as AnyStandard)["~standard"].validate(input);
    expect(result).toEqual({ value: parserOf("v2", "PromptRequest")(input).value });
    expect(result.value).not.toHaveProperty("extra");
    expect((v2Tolerant.PromptRequest as unknown as AnyStandard)["~standard"].validate(BAD_PROMPT).issues?.[0]?.pointer).toBe("/prompt/0/text");
  });
});

describe("issue paths", () => {
  it("unescapes pointer segments and makes array indices numbers", () => {
    const value = { a: [{ "x/y": { "~k": 1 } }], "0": { "1": 2 } };
    expect(pathSegments(value, "/a/0/x~1y/~0k")).toEqual(["a", 0, "x/y", "~k"]);
    expect(pathSegments(value, "/0/1")).toEqual(["0", "1"]);
    expect(pathSegments(value, "")).toEqual([]);
    expect(pathSegments({ __proto__: [1] }, "/__proto__/0")).toEqual(["__proto__", "0"]);
  });
});

describe("in a hono app with @hono/standard-validator", () => {
  const app = new Hono().post("/session/prompt", sValidator("json", v2Standard.PromptRequest), (c) => {
    const body = c.req.valid("json");
    return c.json({ session: body.sessionId, blocks: body.prompt.length });
  });
  const post = (body: unknown) => app.request("/session/prompt", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

  it("accepts a valid session/prompt body", async () => {
    const res = await post(PROMPT);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ session: "s1", blocks: 1 });
  });

  it("answers 400 with our JSON-pointer issues for an invalid one", async () => {
    const res = await post(BAD_PROMPT);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { success: boolean; error: unknown[] };
    expect(body.success).toBe(false);
    expect(body.error).toEqual([{ message: "expected a string, got number 5", path: ["prompt", 0, "text"], pointer: "/prompt/0/text" }]);
  });
});

const WORK = join(ROOT, ".vitest-tmp", "standard");
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe("type level", () => {
  // One module mode here; the package README's Standard Schema example is compiled from the installed
  // tarball under both modes and three TypeScript versions by test/package.test.ts.
  it("is assignable to @standard-schema/spec's interfaces with the inferred types", () => {
    mkdirSync(WORK, { recursive: true });
    const file = join(WORK, "conformance.ts");
    writeFileSync(
      file,
      `import type { StandardJSONSchemaV1, StandardSchemaV1 } from "@standard-schema/spec";
import type * as acp from "../../generated/src/v2/unstable/index.js";
import * as standard from "../../generated/src/v2/unstable/standard/strict.js";
import * as tolerant from "../../generated/src/v2/unstable/standard/tolerant.js";

const strict: StandardSchemaV1<acp.PromptRequest> = standard.PromptRequest;
const json: StandardJSONSchemaV1<acp.PromptRequest> = standard.PromptRequest;
const lenient: StandardSchemaV1<acp.SessionUpdate> = tolerant.SessionUpdate;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const inferred: Same<StandardSchemaV1.InferOutput<typeof standard.PromptRequest>, acp.PromptRequest> = true;
// @ts-expect-error: the output type is the type's own, not any other
export const wrong: Same<StandardSchemaV1.InferOutput<typeof standard.PromptRequest>, acp.SessionUpdate> = true;
const result = standard.PromptRequest["~standard"].validate({});
export const pointers: string[] = result.issues ? result.issues.map((issue) => issue.pointer) : [];
export { strict, json, lenient };
`,
    );
    expect(typeCheck([file], "nodenext")).toEqual([]);
  });
});

describe("bench/standard-bundle.ts", () => {
  it("runs as the README documents it and prints a row per consumer", () => {
    const [command] = readmeBlocks("Standard Schema", "sh");
    expect(command).toBe("npx tsx bench/standard-bundle.ts\n");
    const bench = run("sh", ["-c", command!], ROOT);
    expect(bench.code, bench.stderr).toBe(0);
    expect(bench.stdout).toMatch(/\| `?standard: PromptRequest\['~standard'\]\.validate`? \| \d+\.\d KiB \|/);
  }, 60_000);
});
