/** Loads the JSON fixture files (with JSON.parse, so `__proto__` keys stay own data, S34). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Surface } from "../../generator/ir.js";
import { ROOT } from "./ir.js";

export interface FixtureFile<C> {
  readonly rule: string;
  readonly file: string;
  readonly cases: readonly (C & { readonly name: string; readonly surfaces: readonly Surface[] })[];
}

/** Every `*.json` file of `test/fixtures/<folder>`, sorted by name. */
export function loadFixtures<C>(folder: string): FixtureFile<C>[] {
  const dir = join(ROOT, "test", "fixtures", folder);
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((file) => ({ file, ...(JSON.parse(readFileSync(join(dir, file), "utf8")) as Omit<FixtureFile<C>, "file">) }));
}
