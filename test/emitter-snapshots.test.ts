/**
 * Emitter snapshots: one small schema per idiom (test/fixtures/emitters/),
 * and a file snapshot of every file each built-in emitter writes for it,
 * beside the whole-tree golden test. A change to an emitter shows here as a
 * small, readable diff per idiom and emitter. After an intended change,
 * regenerate with `npx vitest run test/emitter-snapshots.test.ts -u` and
 * review the diff.
 *
 * A fixture `X.json` may come with a semantics overlay `X.semantics.json`;
 * the emitters of the session (apply, session, connection) read the overlay
 * and run only on fixtures that have one. The methods table runs on fixtures
 * that declare methods (`x-method`).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import type { Emitter } from "../generator/api.js";
import { checkIR } from "../generator/check.js";
import { PACKAGE_NAME } from "../generator/emit/package-layout.js";
import { runtimeDirFrom } from "../generator/emit/shared.js";
import { BUILTIN_EMITTERS } from "../generator/generate.js";
import { defsByName, type SchemaIR } from "../generator/ir.js";
import { loadSchema } from "../generator/load.js";
import { methodTable } from "../generator/methods.js";
import { buildSurfaceModel, type SurfaceModel } from "../generator/model.js";
import { loadVariantNames, VARIANT_NAMES_FILE } from "../generator/naming.js";
import { loadSemanticsTable, resolveSemantics } from "../generator/overlay.js";
import { recogniseSchema } from "../generator/recognise.js";
import { typeCheck } from "./support/compile.js";
import { ROOT, SCHEMA_DIR } from "./support/ir.js";

const FIXTURES = join(ROOT, "test", "fixtures", "emitters");
const OVERLAY_SUFFIX = ".semantics.json";
const RUNTIME = join(ROOT, "generator", "runtime");
const WORK_PARENT = join(ROOT, ".vitest-tmp");

/** The built-in emitters that read the semantics overlay or the session model built from it. */
const SESSION_EMITTERS: ReadonlySet<string> = new Set(["apply", "session", "connection"]);

/** The model of a fixture; without an overlay, reading `semantics` or `session` fails the test. */
function fixtureModel(idiom: string): SurfaceModel {
  const path = join(FIXTURES, `${idiom}.json`);
  const schema = loadSchema(path);
  const ir = recogniseSchema(schema, "v2/unstable", `${idiom}.json`, loadVariantNames(join(SCHEMA_DIR, VARIANT_NAMES_FILE)));
  checkIR(ir, path);
  const overlay = join(FIXTURES, `${idiom}${OVERLAY_SUFFIX}`);
  if (existsSync(overlay)) return buildSurfaceModel(ir, resolveSemantics(ir, loadSemanticsTable(overlay), path), schema.defs, path);
  return modelWithoutOverlay(ir, schema.defs, path);
}

function modelWithoutOverlay(ir: SchemaIR, rawDefs: ReadonlyMap<string, unknown>, path: string): SurfaceModel {
  const missing = (): never => expect.fail(`${path} has no ${OVERLAY_SUFFIX} overlay, yet an emitter outside SESSION_EMITTERS read it`);
  const irWithoutOverlay = { ...ir, get semantics() { return missing(); } };
  return {
    surface: ir.surface, file: ir.file, sha256: ir.sha256, defs: ir.defs, defsByName: defsByName(ir.defs), rawDefs, methods: methodTable(ir, path), ir: irWithoutOverlay,
    get semantics() { return missing(); },
    get session() { return missing(); },
  };
}

/** Whether `emitter` has something to say about the fixture's model. */
function applies(emitter: Emitter, model: SurfaceModel, hasOverlay: boolean): boolean {
  if (SESSION_EMITTERS.has(emitter.name)) return hasOverlay;
  return emitter.name !== "methods" || model.methods.length > 0;
}

const idioms = readdirSync(FIXTURES)
  .filter((f) => f.endsWith(".json") && !f.endsWith(OVERLAY_SUFFIX))
  .map((f) => f.slice(0, -".json".length))
  .sort();

describe("emitter snapshots per idiom", () => {
  it("has the idioms of issue 12 and the session routes", () => {
    expect(idioms).toEqual(["absent-tag-variant", "mixins", "open-integer-enum", "open-union", "pattern", "session-routes", "three-state-field", "untagged-exclusive-union"]);
  });

  it("runs every built-in emitter on some fixture", () => {
    const models = idioms.map((idiom) => [fixtureModel(idiom), existsSync(join(FIXTURES, `${idiom}${OVERLAY_SUFFIX}`))] as const);
    const unused = BUILTIN_EMITTERS.filter((e) => !models.some(([model, hasOverlay]) => applies(e, model, hasOverlay))).map((e) => e.name);
    expect(unused).toEqual([]);
  });

  for (const idiom of idioms) {
    it(idiom, async () => {
      for (const { emitter, path, content } of emittedFiles(idiom)) {
        await expect(content, `${emitter}: ${path}`).toMatchFileSnapshot(join("snapshots", "emitters", idiom, `${path}.snap`));
      }
    });
  }

  it("every fixture's output type-checks strictly against the runtime", () => {
    // A directory of its own: the documented `-u` run (test/emitter-api.test.ts) may run this file at the same time.
    mkdirSync(WORK_PARENT, { recursive: true });
    const work = mkdtempSync(join(WORK_PARENT, "emitter-snapshots-"));
    onTestFinished(() => rmSync(work, { recursive: true, force: true }));
    const files = idioms.flatMap((idiom) => {
      const src = join(work, idiom, "src");
      cpSync(RUNTIME, join(src, "runtime"), { recursive: true });
      return emittedFiles(idiom).map(({ path, content }) => {
        const file = join(src, "v2", "unstable", path);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, content);
        return file;
      });
    });
    expect(typeCheck(files, "nodenext")).toEqual([]);
  }, 60_000);
});

/** Every file the built-in emitters that apply write for the fixture `idiom`, with the emitter's name. */
function emittedFiles(idiom: string): { emitter: string; path: string; content: string }[] {
  const model = fixtureModel(idiom);
  const hasOverlay = existsSync(join(FIXTURES, `${idiom}${OVERLAY_SUFFIX}`));
  return BUILTIN_EMITTERS.filter((e) => applies(e, model, hasOverlay)).flatMap((emitter) =>
    emitter.files.map((file) => {
      const context = { runtime: runtimeDirFrom(model.surface, file.path), packageName: PACKAGE_NAME };
      return { emitter: emitter.name, path: file.path, content: file.emit(model, context) };
    }),
  );
}
