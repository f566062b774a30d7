/**
 * The compile step the benches share: they measure acp-bindings as a user
 * runs it, i.e. the built package's `.js` files loaded as ES modules, not the
 * `.ts` sources loaded by tsx (which loads them as CommonJS: every export a
 * getter, every call between generated modules through one; README,
 * "How the bench measures what a client sees").
 */
import { build } from "esbuild";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Compiles `root`'s generated/src, and `extra` (paths relative to `root`),
 * into `out` as plain ES modules (one output file per source, imports kept,
 * paths kept relative to `root`), marked `"type": "module"` as the published
 * package is, so that Node (and tsx) load them as ES modules.
 */
export async function compileModules(root: string, out: string, extra: readonly string[] = []): Promise<void> {
  const src = join(root, "generated/src");
  const sources = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"));
  const entryPoints = [...sources.map((f) => join(src, f)), ...extra.map((f) => join(root, f))];
  await build({ entryPoints, outbase: root, outdir: out, format: "esm", platform: "node", target: "node20", logLevel: "error" });
  writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }));
}

/**
 * Imports `path` (relative to `dir`, a directory `compileModules` wrote);
 * throws unless it loaded as an ES module (an ES module namespace holds its
 * exports as data properties; tsx's CommonJS form of the same file holds
 * getters).
 */
export async function importCompiled(dir: string, path: string): Promise<object> {
  const namespace = (await import(pathToFileURL(join(dir, path)).href)) as object;
  const getters = Object.keys(namespace).filter((name) => Object.getOwnPropertyDescriptor(namespace, name)?.get !== undefined);
  if (getters.length > 0) throw new Error(`${path} was not loaded as an ES module: its exports ${getters.slice(0, 3).join(", ")} are getters`);
  return namespace;
}
