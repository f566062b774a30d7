import { put, type ValidateOptions } from "./decode.js";
import type { Result } from "./result.js";

/*
 * Standard Schema V1 and Standard JSON Schema V1 (https://standardschema.dev,
 * `@standard-schema/spec` 1.1): the types are written out here, as the spec
 * intends, so the package needs no dependency; they are assignable to the spec's.
 */

/** The inferred input and output types a Standard schema carries (type-level only). */
export interface StandardTypes<Input, Output> {
  readonly input: Input;
  readonly output: Output;
}

/** The options of a Standard JSON Schema conversion. */
export interface StandardJSONSchemaOptions {
  /** `"draft-2020-12"` is the one target supported (the ACP schema's own dialect). */
  readonly target: "draft-2020-12" | "draft-07" | "openapi-3.0" | ({} & string);
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** A Standard Schema issue: the Standard `path` (keys, array indices as numbers) plus the same place as a JSON pointer. */
export interface AcpStandardIssue {
  readonly message: string;
  readonly path: ReadonlyArray<string | number>;
  /** JSON pointer (RFC 6901) of the offending value, as in `validate`/`parse` issues. */
  readonly pointer: string;
}

/** What `~standard.validate` returns: the value, or issues (never both). */
export type AcpStandardResult<T> = { readonly value: T; readonly issues?: undefined } | { readonly issues: ReadonlyArray<AcpStandardIssue> };

/**
 * A Standard Schema V1 (synchronous) that is also a Standard JSON Schema V1, for one
 * ACP type: assignable to the spec's `StandardSchemaV1<T>` and `StandardJSONSchemaV1<T>`.
 */
export interface AcpStandardSchema<T> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "acp-bindings";
    readonly validate: (value: unknown) => AcpStandardResult<T>;
    /** Standard JSON Schema V1: the type's JSON Schema (target `"draft-2020-12"`). */
    readonly jsonSchema: {
      readonly input: (options: StandardJSONSchemaOptions) => Record<string, unknown>;
      readonly output: (options: StandardJSONSchemaOptions) => Record<string, unknown>;
    };
    readonly types?: StandardTypes<T, T> | undefined;
  };
}

/** The `$defs` of a JSON Schema document being assembled, keyed by `$defs` key. */
export type JsonSchemaDefs = Record<string, unknown>;

/** Adds one `$defs` entry (JSON text) unless present; `false` when it was there already (cycles stop here). */
export function addDef(defs: JsonSchemaDefs, key: string, json: string): boolean {
  if (Object.hasOwn(defs, key)) return false;
  put(defs, key, JSON.parse(json));
  return true;
}

/**
 * The Standard schema of one type: `check` is `validate.X` (strict) or `parse.X`
 * (tolerant); `key` is the type's `$defs` key and `addDefs` adds its definition and
 * every definition it references.
 */
export function standardSchema<T>(check: (value: unknown) => Result<T>, key: string, addDefs: (defs: JsonSchemaDefs) => void): AcpStandardSchema<T> {
  const jsonSchema = (options: StandardJSONSchemaOptions) => jsonSchemaDocument(options, key, addDefs);
  return {
    "~standard": {
      version: 1,
      vendor: "acp-bindings",
      validate: (value) => {
        const result = check(value);
        if (result.ok) return { value: result.value };
        return { issues: result.issues.map((issue) => ({ message: issue.message, path: pathSegments(value, issue.path), pointer: issue.path })) };
      },
      jsonSchema: { input: jsonSchema, output: jsonSchema },
    },
  };
}

/** What a strict Standard schema asks of `validate.X`: every issue, in document order (a form shows them all at once). */
const ALL_ISSUES: ValidateOptions = { all: true };

/**
 * The strict Standard schema of one type: `validate` is `validate.X`, called with
 * `{ all: true }`, so an invalid value reports every issue, not only the first.
 */
export function strictStandardSchema<T>(validate: (value: unknown, options?: ValidateOptions) => Result<T>, key: string, addDefs: (defs: JsonSchemaDefs) => void): AcpStandardSchema<T> {
  return standardSchema((value) => validate(value, ALL_ISSUES), key, addDefs);
}

/**
 * A fresh JSON Schema 2020-12 document for `key`: a `$ref` to it and the `$defs` it
 * reaches. Other targets throw, as the Standard JSON Schema spec asks of a target a
 * library does not support (the only throw in this package).
 */
function jsonSchemaDocument(options: StandardJSONSchemaOptions, key: string, addDefs: (defs: JsonSchemaDefs) => void): Record<string, unknown> {
  if (options.target !== "draft-2020-12") throw new Error(`acp-bindings: JSON Schema target ${JSON.stringify(options.target)} is not supported; use "draft-2020-12"`);
  const defs: JsonSchemaDefs = {};
  addDefs(defs);
  return { $schema: "https://json-schema.org/draft/2020-12/schema", $ref: `#/$defs/${escapeSegment(key)}`, $defs: defs };
}

function escapeSegment(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * A JSON pointer as Standard path segments: unescaped keys, and numbers where the
 * value at that point is an array (found by walking `value`, iteratively).
 */
export function pathSegments(value: unknown, pointer: string): (string | number)[] {
  if (pointer === "") return [];
  const segments: (string | number)[] = [];
  let here: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    const index = Array.isArray(here) && /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : undefined;
    segments.push(index ?? key);
    here = typeof here === "object" && here !== null && Object.hasOwn(here, key) ? (here as Record<string, unknown>)[key] : undefined;
  }
  return segments;
}
