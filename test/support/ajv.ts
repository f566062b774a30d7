/**
 * The reference validator: ajv (JSON Schema 2020-12) compiled from the pinned
 * schema, with the integer formats of S30 checked as ranges, every other
 * format accepted unchecked (S31) and the `x-*` keywords ignored. It is the
 * same oracle the benchmark's `--verdicts` run uses (bench/anchors.ts).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { makeAjv, type DefValidators } from "../../bench/anchors.js";
import type { Surface } from "../../generator/ir.js";
import { pinnedSchema } from "./ir.js";

const oracles = new Map<Surface, DefValidators>();

/** ajv's verdict on `value` against `$defs[type]` of the surface. */
export function ajvValid(surface: Surface, type: string, value: unknown): boolean {
  let oracle = oracles.get(surface);
  if (!oracle) {
    oracle = makeAjv(pinnedSchema(surface) as Parameters<typeof makeAjv>[0], { integerFormats: true });
    oracles.set(surface, oracle);
  }
  return oracle(type)(value) as boolean;
}

/** ajv's verdict on `value` against a small standalone schema (for emitter unit tests). */
export function ajvValidates(schema: object, value: unknown): boolean {
  return new Ajv2020({ strict: false }).compile(schema)(value) as boolean;
}
