/**
 * The documentation's code examples (README.md's tour, the opening example of
 * each guide, the sections on Standard Schema and the API reference) compile exactly as written (strict consumer settings, `acp-bindings`
 * mapped to generated/src), and `npm run docs`, run as documented, writes one
 * page per surface with its members grouped by kind and a page per namespace.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { PARSE_EXAMPLE, V1_AGENT_EXAMPLE, V1_CLIENT_EXAMPLE } from "../generator/emit/package-quick-start.js";
import { SURFACES } from "../generator/surfaces.js";
import { run } from "./consumer/harness.js";
import { consumerOptions } from "./support/compile.js";
import { ROOT } from "./support/ir.js";
import { documentationFiles, fencedBlocks, readmeBlocks } from "./docs-readme.js";

const WORK = join(ROOT, ".vitest-tmp", "docs");
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

/** `paths` mapping each subpath of the package's exports map to its source in generated/src. */
function sourcePaths(): Record<string, string[]> {
  const manifest = JSON.parse(readFileSync(join(ROOT, "generated", "package.json"), "utf8")) as { name: string; exports: Record<string, unknown> };
  const paths: Record<string, string[]> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    const types = (target as { types?: string }).types;
    if (types) paths[`${manifest.name}${subpath.slice(1)}`] = [join(ROOT, "generated", "src", types.replace(/^\.\/[^/]+\//, "").replace(/\.d\.ts$/, ".ts"))];
  }
  return paths;
}

/** The opening of a guide: what comes before its first `## ` section. */
function opening(guide: string): string {
  const text = readFileSync(join(ROOT, guide), "utf8");
  const first = text.indexOf("\n## ");
  return first < 0 ? text : text.slice(0, first);
}

const GUIDES = documentationFiles().filter((file) => file.startsWith("docs/") && file !== "docs/rules.md");

describe("documentation examples", () => {
  it("each guide starts with an example: a ts block (compiled below) or an sh block (its commands are in the README-commands registry)", () => {
    expect(GUIDES.length).toBeGreaterThan(8);
    for (const guide of GUIDES) expect([...fencedBlocks(opening(guide), "ts"), ...fencedBlocks(opening(guide), "sh")].length, guide).toBeGreaterThan(0);
  });

  it("README.md's tour shows the package README's quick start as it is (an agent, a client with the store, parse and validate)", () => {
    expect(readmeBlocks("A tour", "ts")).toEqual([V1_AGENT_EXAMPLE, V1_CLIENT_EXAMPLE, PARSE_EXAMPLE]);
  });

  it("of README.md's tour, each guide's opening, \"Standard Schema\" and \"API reference\" compile as written", () => {
    mkdirSync(WORK, { recursive: true });
    const sources = [
      ...["A tour", "Standard Schema", "API reference"].map((heading) => ({ name: heading, blocks: readmeBlocks(heading, "ts") })),
      ...GUIDES.map((guide) => ({ name: guide, blocks: fencedBlocks(opening(guide), "ts") })),
    ];
    const files = sources.flatMap(({ name, blocks }) => {
      if (!name.startsWith("docs/")) expect(blocks.length, name).toBeGreaterThan(0);
      return blocks.map((code, i) => {
        const file = join(WORK, `${name.replace(/[^A-Za-z0-9]+/g, "-")}-${i + 1}.ts`);
        writeFileSync(file, `${code}export {};\n`);
        return file;
      });
    });
    // With Node's types: the tour's agent and client are Node programs.
    const program = ts.createProgram(files, { ...consumerOptions("bundler"), paths: sourcePaths(), types: ["node"] });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    expect(errors).toEqual([]);
  });
});

describe("npm run docs", () => {
  it("is the documented command, and writes a page per surface and per namespace", () => {
    expect(readmeBlocks("API reference", "sh")).toEqual(["npm run docs\n"]);
    const docs = run("npm", ["run", "docs"], ROOT);
    expect(docs.code, docs.stdout + docs.stderr).toBe(0);
    for (const { surface } of SURFACES) {
      const page = readFileSync(join(ROOT, "docs", "api", surface, "README.md"), "utf8");
      const groups = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
      const has = (module: string, group: string) => (existsSync(join(ROOT, "generated", "src", surface, module)) ? [group] : []);
      expect(groups, surface).toEqual(["Types", "validate", "parse", ...has("parse-owned.ts", "parseOwned"), "build", "apply", "Session", ...has("connection.ts", "Connection"), "Methods"]);
      const section = (group: string) => page.slice(page.indexOf(`\n## ${group}\n`), page.indexOf("\n## ", page.indexOf(`\n## ${group}\n`) + 1));
      expect(section("Types")).toContain("### PromptRequest");
      expect(section("Session")).toContain("### reduceSession()");
      expect(section("Methods")).toContain("### methods");
      for (const ns of ["validate", "parse", "parseOwned", "build", "apply"]) expect(existsSync(join(ROOT, "docs", "api", surface, "namespaces", `${ns}.md`)), `${surface} ${ns}`).toBe(true);
    }
  }, 180_000);
});
