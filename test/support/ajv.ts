/**
 * The reference validator: ajv (JSON Schema 2020-12) compiled from the pinned
 * schema, with the integer formats of S30 checked as ranges, every other
 * format accepted unchecked (S31) and the `x-*` keywords ignored.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020Module from "ajv/dist/2020.js";
import type { Surface } from "../../generator/ir.js";
import { SURFACES } from "../../generator/surfaces.js";
import { SCHEMA_DIR } from "./ir.js";

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

/** Exclusive upper bounds as doubles: 2^63 - 1 and 2^64 - 1 are not doubles. */
const INTEGER_FORMATS: Record<string, [number, number]> = {
  int32: [-(2 ** 31), 2 ** 31],
  int64: [-(2 ** 63), 2 ** 63],
  uint16: [0, 2 ** 16],
  uint32: [0, 2 ** 32],
  uint64: [0, 2 ** 64],
};

type Check = (value: unknown) => boolean;
const compiled = new Map<string, Check>();
const instances = new Map<Surface, InstanceType<typeof Ajv2020>>();

function ajvFor(surface: Surface): InstanceType<typeof Ajv2020> {
  let ajv = instances.get(surface);
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: false, formats: { uri: true, "date-time": true, regex: true, double: true } });
  for (const [format, [min, maxExclusive]] of Object.entries(INTEGER_FORMATS)) {
    ajv.addFormat(format, { type: "number", validate: (x: number) => Number.isInteger(x) && x >= min && x < maxExclusive });
  }
  const file = SURFACES.find((s) => s.surface === surface)!.file;
  const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, file), "utf8"));
  ajv.addSchema({ ...schema, $id: `acp:${surface}` });
  instances.set(surface, ajv);
  return ajv;
}

/** ajv's verdict on `value` against `$defs[type]` of the surface. */
export function ajvValid(surface: Surface, type: string, value: unknown): boolean {
  const key = `${surface}#${type}`;
  let check = compiled.get(key);
  if (!check) {
    const validate = ajvFor(surface).compile({ $ref: `acp:${surface}#/$defs/${type}` });
    check = (v) => validate(v) as boolean;
    compiled.set(key, check);
  }
  return check(value);
}

/** ajv's verdict on `value` against a small standalone schema (for recogniser/emitter unit tests). */
export function ajvValidates(schema: object, value: unknown): boolean {
  return new Ajv2020({ strict: false }).compile(schema)(value) as boolean;
}
