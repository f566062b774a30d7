/**
 * emitApply: the semantics overlay -> `apply.ts` of one surface. One
 * `apply.X(stored, update)` per patch type of the reviewed table (S1-S22):
 * a call of the runtime patch engine with the type's field rules. Pure; the
 * result is the canonical stored form (defaults materialised, no `null`,
 * `_meta` omitted when empty).
 */
import { ident, jsDoc, literal, ownRead, ownWrite } from "../code.js";
import type { FieldRule, SchemaIR, Upsert } from "../ir.js";
import { runtimeDir, semanticsOf } from "./shared.js";

/** Emits the `apply.ts` module body of one surface. */
export function emitApply(ir: SchemaIR): string {
  const upserts = semanticsOf(ir).upserts.filter((u) => u.patch);
  const head = [`import type * as T from "./types.js";`, `import * as rt from ${literal(`${runtimeDir(ir)}/patch.js`)};`, ""];
  return [...head, ...upserts.map(applyFunction)].join("\n");
}

/** `apply.X`: its doc and the exported function. */
function applyFunction(upsert: Upsert): string {
  const name = ident(upsert.type);
  const doc = jsDoc([
    `Applies the patch \`update\` (a \`${upsert.type}\`) to the stored entity (${upsert.rule}); pure, inputs untouched.`,
    "",
    upsert.key === undefined ? "The entity is a session singleton." : `\`stored\` is the entity last stored for the update's \`${upsert.key}\`, or \`undefined\` on first sight (S4).`,
    "Field rules (schema/semantics.json):",
    ...upsert.fields.filter((f) => f.name !== upsert.key).map((f) => `- \`${f.name}\`: ${describeRule(f.rule)}`),
    "",
    "The result is a fresh object in the canonical stored form; unchanged values are shared with the inputs.",
  ]);
  return `${doc}${patchFunction(`export function ${name}`, `T.${name}`, upsert.fields)}\n`;
}

/**
 * A patch function over `fields`: one statement per field, reading and
 * writing it directly (names are checked: `Object.prototype` members are
 * read as own properties, S34), the rule a runtime call of `rt`
 * (runtime/patch.ts). `head` is `function name` or `export function name`.
 */
export function patchFunction(head: string, type: string, fields: Upsert["fields"]): string {
  const lines = fields.map((f) => `  if ((v = ${ruleCall(f.name, f.rule)}) !== undefined) ${ownWrite("o", f.name, "v")};`);
  return [
    `${head}(stored: ${type} | undefined, update: ${type}): ${type} {`,
    "  const s = rt.fieldsOf(stored), u = rt.fieldsOf(update), o: rt.JsonObject = {};",
    "  let v: unknown;",
    ...lines,
    `  return o as unknown as ${type};`,
    "}",
  ].join("\n");
}

/** The runtime call that computes a field's new value (`undefined`: the key is absent). */
function ruleCall(name: string, rule: FieldRule): string {
  const old = ownRead("s", name);
  const value = ownRead("u", name);
  switch (rule.kind) {
    case "reset":
      return typeof rule.value === "string" ? `rt.reset(${old}, ${value}, ${literal(rule.value)})` : `rt.resetList(${old}, ${value})`;
    case "metaPatch":
      return `rt.applyMeta(${old} as rt.JsonObject | undefined, ${value} as rt.JsonObject | null | undefined)`;
    case "latest":
      return `rt.latest(${value})`;
    default:
      return `rt.${rule.kind}(${old}, ${value})`;
  }
}

/** One line of the generated doc per field rule. */
function describeRule(rule: FieldRule): string {
  switch (rule.kind) {
    case "replace":
      return "omitted keeps, `null` removes, a value replaces (S1, S2)";
    case "reset":
      return typeof rule.value === "string"
        ? `omitted keeps, \`null\` resets to \`${JSON.stringify(rule.value)}\`, a value replaces; starts as \`${JSON.stringify(rule.value)}\` (S4)`
        : "omitted keeps, `null` and `[]` clear to `[]`, an array replaces; starts as `[]` (S3)";
    case "keep":
      return "omitted and `null` keep, a value replaces (S22)";
    case "latest":
      return "the update's value; omitted and `null` remove it (S15)";
    case "metaPatch":
      return "patched by top-level key, see `applyMeta` (S6)";
  }
}
