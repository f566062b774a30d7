/**
 * emitApply: the semantics overlay -> `apply.ts` of one surface. One
 * `apply.X(stored, update)` per patch type of the reviewed table (S1-S22):
 * one statement per field, each a call of the runtime rule (runtime/patch.ts).
 * Pure; the result is the canonical stored form (defaults materialised, no
 * `null`, `_meta` omitted when empty).
 */
import type { EmitContext } from "../api.js";
import { block, code, doc, GeneratedFile, lines, name, own, ownSet, type Code } from "../code.js";
import type { FieldRule, Upsert } from "../ir.js";
import type { SurfaceModel } from "../model.js";

/** Emits the `apply.ts` module of one surface. */
export function emitApply(model: SurfaceModel, context: Pick<EmitContext, "runtime">): string {
  const f = new GeneratedFile();
  const types = f.importAll("./types.js", "T", { type: true });
  const rt = f.importAll(`${context.runtime}/patch.js`, "rt");
  for (const upsert of model.semantics.upserts.filter((u) => u.patch)) f.print(applyFunction(upsert, types, rt));
  return f.toString();
}

/** `apply.X`: its doc and the exported function. */
function applyFunction(upsert: Upsert, types: Code, rt: Code): Code {
  const comment = doc([
    `Applies the patch \`update\` (a \`${upsert.type}\`) to the stored entity (${upsert.rule}); pure, inputs untouched.`,
    "",
    upsert.key === undefined ? "The entity is a session singleton." : `\`stored\` is the entity last stored for the update's \`${upsert.key}\`, or \`undefined\` on first sight (S4).`,
    "Field rules (schema/semantics.json):",
    ...upsert.fields.filter((f) => f.name !== upsert.key).map((f) => `- \`${f.name}\`: ${describeRule(f.rule)}`),
    "",
    "The result is a fresh object in the canonical stored form; unchanged values are shared with the inputs.",
  ]);
  return patchFunction(code`${comment}export function`, name(upsert.type), code`${types}.${name(upsert.type)}`, upsert.fields, rt);
}

/**
 * A patch function over `fields`: one statement per field, reading and
 * writing it directly (`Object.prototype` member names are read as own
 * properties, S34), the rule a call of the runtime `rt` (runtime/patch.ts).
 * `head` is `function` or `export function` (with its doc), `fn` the name.
 * Results come from a constructor of plain objects of the function's own
 * (`objects_<fn>`, runtime `plainObjects`), so each holds its fields in the
 * object itself, no slot to spare (a `{}` reserves four, and moves a fifth
 * field on to a separate store), which every kept state holds on to.
 */
export function patchFunction(head: Code, fn: Code, type: Code, fields: Upsert["fields"], rt: Code): Code {
  const [s, u, o, v] = [code`s`, code`u`, code`o`, code`v`];
  const objects = name(`objects_${fn.text}`);
  const statements = fields.map((f) => code`if ((v = ${ruleCall(rt, own(s, f.name), own(u, f.name), f.rule)}) !== undefined) ${ownSet(o, f.name, v)};`);
  return lines([
    code`const ${objects} = ${rt}.plainObjects();`,
    code``,
    block(code`${head} ${fn}(stored: ${type} | undefined, update: ${type}): ${type}`, [
      code`const s = ${rt}.fieldsOf(stored), u = ${rt}.fieldsOf(update), o = new ${objects}();`,
      code`let v: unknown;`,
      ...statements,
      code`return o as unknown as ${type};`,
    ]),
  ]);
}

/** The runtime call that computes a field's new value from the stored (`old`) and the update's (`value`) (`undefined`: the key is absent). */
function ruleCall(rt: Code, old: Code, value: Code, rule: FieldRule): Code {
  switch (rule.kind) {
    case "reset":
      return typeof rule.value === "string" ? code`${rt}.reset(${old}, ${value}, ${rule.value})` : code`${rt}.resetList(${old}, ${value})`;
    case "meta-patch":
      return code`${rt}.applyMeta(${old} as ${rt}.JsonObject | undefined, ${value} as ${rt}.JsonObject | null | undefined)`;
    case "latest":
      return code`${rt}.latest(${value})`;
    case "replace":
    case "keep":
      return code`${rt}.${name(rule.kind)}(${old}, ${value})`;
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
    case "meta-patch":
      return "patched by top-level key, see `applyMeta` (S6)";
  }
}
