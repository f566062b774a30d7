/**
 * The reference validators the benchmark compares against, each exposed as
 * `def name -> (value) => boolean` (plus the parsed value for the SDK):
 *
 * - ajv (JSON Schema 2020-12), compiled once from the pinned schema;
 * - the official SDK's zod schemas, i.e. what `@agentclientprotocol/sdk`'s
 *   `experimental/v2/unstable` entry uses to decode incoming messages.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "./route.js";

const SCHEMA_ID = "acp-v2-unstable";

/**
 * Integer widths (S30): enforced as ranges by the S31 oracle, ignored by the plain anchor.
 * 64-bit bounds are the doubles `JSON.parse` rounds them to (2^63, 2^64), inclusive.
 */
const INTEGER_FORMATS: Record<string, (n: number) => boolean> = {
  int32: (n) => n >= -(2 ** 31) && n < 2 ** 31,
  uint16: (n) => n >= 0 && n < 2 ** 16,
  uint32: (n) => n >= 0 && n < 2 ** 32,
  int64: (n) => n >= -(2 ** 63) && n <= 2 ** 63,
  uint64: (n) => n >= 0 && n <= 2 ** 64,
};

export interface AjvOptions {
  /**
   * false (the benchmark anchor): `validateFormats: false`, as asked of the
   * anchor. true (the S31 oracle for verdicts): integer formats are asserted
   * as ranges and every other format (uri, date-time, regex, double) is
   * accepted as an annotation.
   */
  integerFormats: boolean;
}

/** Validators per `$defs` key, compiled on first use (do it before timing). */
export type DefValidators = (def: string) => ValidateFunction;

/** Builds an ajv instance over the pinned schema. */
export function makeAjv(schema: JsonSchema, { integerFormats }: AjvOptions): DefValidators {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: integerFormats });
  if (integerFormats) {
    for (const name of schemaFormats(schema)) {
      const range = INTEGER_FORMATS[name];
      ajv.addFormat(name, range ? { type: "number", validate: range } : true);
    }
  }
  ajv.addSchema(schema, SCHEMA_ID);
  const cache = new Map<string, ValidateFunction>();
  return (def) => {
    let fn = cache.get(def);
    if (fn === undefined) {
      fn = ajv.getSchema(`${SCHEMA_ID}#/$defs/${def}`);
      if (fn === undefined) throw new Error(`ajv: no $defs/${def}`);
      cache.set(def, fn);
    }
    return fn;
  };
}

/** Every `format` name used in the schema. */
function schemaFormats(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) schemaFormats(item, into);
  else if (typeof schema === "object" && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "format" && typeof value === "string") into.add(value);
      else schemaFormats(value, into);
    }
  }
  return into;
}

/** The subset of a zod schema the benchmark uses. */
export interface ZodSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: { issues: unknown[] } };
}

/**
 * Loads the SDK's v2-unstable zod module (`dist/v2/unstable/schema/zod.gen.js`).
 * It is not a package export, so it is located next to the public
 * `@agentclientprotocol/sdk/experimental/v2/unstable` entry (dist/v2/unstable/acp.js),
 * whose implementation (dist/v2/acp.js) imports exactly this module to parse
 * received params (e.g. `zUpdateSessionNotification` for `session/update`).
 */
export async function loadSdkZod(): Promise<(def: string) => ZodSchema> {
  const entry = import.meta.resolve("@agentclientprotocol/sdk/experimental/v2/unstable");
  const mod = (await import(new URL("./schema/zod.gen.js", entry).href)) as Record<string, ZodSchema | undefined>;
  return (def) => {
    const schema = mod[`z${def}`];
    if (schema === undefined) throw new Error(`SDK zod: no z${def}`);
    return schema;
  };
}
