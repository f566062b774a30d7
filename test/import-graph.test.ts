/**
 * Layering of generator/, read statically from the sources (TypeScript's
 * `preProcessFile`, so `import type` and `export ... from` count too): the
 * import graph has no cycle, no emitter imports the writer, and every error
 * class lives in errors.ts (all bad input exits 2, issue 12 item 4). The
 * cycle finder is checked on a graph with a cycle, so the first test cannot
 * pass by finding nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { ROOT } from "./support/ir.js";

const GENERATOR = join(ROOT, "generator");

/** Module path (relative to generator/) -> the generator modules it imports. */
type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** The relative imports of one source text, as module paths relative to generator/ (`./x.js` -> `x.ts`). */
function importsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((imported) => imported.fileName)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => relative(GENERATOR, resolve(GENERATOR, dirname(file), specifier)).replace(/\.js$/, ".ts"));
}

/** The import graph of the given sources (path relative to generator/ -> text). */
function graphOf(sources: ReadonlyMap<string, string>): ImportGraph {
  return new Map([...sources].map(([file, text]) => [file, importsOf(file, text)]));
}

/** Every TypeScript module under generator/, path relative to it -> text. */
function generatorSources(): Map<string, string> {
  const files = readdirSync(GENERATOR, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  return new Map(files.sort().map((f) => [f.split("\\").join("/"), readFileSync(join(GENERATOR, f), "utf8")]));
}

/** The cycles of a graph, each as the path that closes it (`a.ts -> b.ts -> a.ts`); depth-first, iterative. */
function findCycles(graph: ImportGraph): string[] {
  const cycles: string[] = [];
  const done = new Set<string>();
  for (const start of graph.keys()) {
    if (done.has(start)) continue;
    const path: string[] = [];
    const stack: { node: string; next: number }[] = [{ node: start, next: 0 }];
    path.push(start);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const edges = graph.get(top.node) ?? [];
      if (top.next >= edges.length) {
        done.add(top.node);
        stack.pop();
        path.pop();
        continue;
      }
      const target = edges[top.next++]!;
      const onPath = path.indexOf(target);
      if (onPath >= 0) cycles.push([...path.slice(onPath), target].join(" -> "));
      else if (!done.has(target) && graph.has(target)) {
        stack.push({ node: target, next: 0 });
        path.push(target);
      }
    }
  }
  return cycles;
}

describe("the import graph of generator/", () => {
  const sources = generatorSources();
  const graph = graphOf(sources);

  it("is read from the sources: cli.ts imports generate.ts, package.ts its README emitter", () => {
    expect(graph.get("cli.ts")).toContain("generate.ts");
    expect(graph.get("emit/package.ts")).toContain("emit/package-readme.ts");
  });

  it("has no cycle", () => {
    expect(findCycles(graph)).toEqual([]);
  });

  it("the cycle finder reports a cycle, type-only imports and re-exports included", () => {
    const withCycle = new Map(sources);
    withCycle.set("emit/package-layout.ts", `${sources.get("emit/package-layout.ts")}\nimport type { PackageInput as Again } from "./package.js";\n`);
    const cycles = findCycles(graphOf(withCycle));
    // Every cycle found goes through the injected edge; the shortest one is among them.
    expect(cycles.every((c) => c.includes("emit/package-layout.ts -> emit/package.ts"))).toBe(true);
    expect(cycles).toContain("emit/package-layout.ts -> emit/package.ts -> emit/package-layout.ts");
    const reexport = graphOf(new Map([["a.ts", 'export { b } from "./b.js";'], ["b.ts", 'export * from "./c.js";'], ["c.ts", 'import "./a.js";']]));
    expect(findCycles(reexport)).toEqual(["a.ts -> b.ts -> c.ts -> a.ts"]);
  });

  it("no emitter imports the writer", () => {
    const emitters = [...graph].filter(([file]) => file.startsWith("emit/"));
    expect(emitters.length).toBeGreaterThan(5);
    expect(emitters.filter(([, imports]) => imports.includes("write.ts")).map(([file]) => file)).toEqual([]);
  });

  it("every error class of the generator is in errors.ts (the bad-input errors, exit 2)", () => {
    const declaring = [...sources]
      .filter(([file]) => !file.startsWith("runtime/"))
      .filter(([, text]) => /\bclass\s+\w+\s+extends\s+\w*Error\b/.test(text))
      .map(([file]) => file);
    expect(declaring).toEqual(["errors.ts"]);
  });
});
