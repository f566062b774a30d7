/**
 * Emitter snapshots: one small schema per idiom (test/fixtures/emitters/),
 * and a file snapshot of what each IR emitter writes for it, beside the
 * whole-tree golden test. A change to an emitter shows here as a small,
 * readable diff per idiom. After an intended change, regenerate with
 * `npx vitest run -u test/emitter-snapshots.test.ts` and review the diff.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkIR } from "../generator/check.js";
import { emitBuilders } from "../generator/emit/builders.js";
import { emitParsers } from "../generator/emit/parsers.js";
import { emitTypes } from "../generator/emit/types.js";
import { emitValidators } from "../generator/emit/validators.js";
import type { SchemaIR } from "../generator/ir.js";
import { loadSchema } from "../generator/load.js";
import { loadVariantNames, VARIANT_NAMES_FILE } from "../generator/naming.js";
import { recogniseSchema } from "../generator/recognise.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";

const FIXTURES = join(ROOT, "test", "fixtures", "emitters");

/** The emitters whose output depends on the IR alone, by the file they write. */
const EMITTERS: readonly (readonly [string, (ir: SchemaIR) => string])[] = [
  ["types.ts", emitTypes],
  ["validate.ts", emitValidators],
  ["parse.ts", emitParsers],
  ["build.ts", emitBuilders],
];

function fixtureIR(file: string): SchemaIR {
  const path = join(FIXTURES, file);
  const ir = recogniseSchema(loadSchema(path), "v2/unstable", file, loadVariantNames(join(SCHEMA_DIR, VARIANT_NAMES_FILE)));
  checkIR(ir, path);
  return ir;
}

const idioms = readdirSync(FIXTURES).filter((f) => f.endsWith(".json")).sort();

describe("emitter snapshots per idiom", () => {
  it("has the seven idioms", () => {
    expect(idioms).toEqual(
      ["absent-tag-variant", "mixins", "open-integer-enum", "open-union", "pattern", "three-state-field", "untagged-exclusive-union"].map((i) => `${i}.json`),
    );
  });

  for (const file of idioms) {
    const idiom = file.replace(/\.json$/, "");
    it(idiom, async () => {
      const ir = fixtureIR(file);
      for (const [output, emit] of EMITTERS) {
        await expect(emit(ir)).toMatchFileSnapshot(join("snapshots", "emitters", idiom, `${output}.snap`));
      }
    });
  }
});
