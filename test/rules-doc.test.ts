/**
 * The rulebook docs/rules.md (issue 12 item 5): every rule id cited in
 * generator/, generated/src and README.md has a section there (an anchor
 * `<a id="sN">` and a heading `### SN: ...`), the sections are S1..S36 in
 * order, each a short summary, and generate ships the file in the package,
 * linked from both READMEs.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RULES_FILE } from "../generator/emit/package-layout.js";
import { documentationFiles } from "./support/documentation.js";
import { ROOT } from "./support/ir.js";

const RULES = readFileSync(join(ROOT, RULES_FILE), "utf8");

/** Rule ids (`S1`, `S23`, ...) cited in a text. */
function citedIds(text: string): Set<number> {
  return new Set([...text.matchAll(/\bS(\d+)\b/g)].map((m) => Number(m[1])));
}

/** Every `.ts` file under a directory of the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(ROOT, dir, f));
}

/** Rule number -> its section text (from the heading to the next anchor). */
function sections(): Map<number, string> {
  const parts = RULES.split(/^<a id="s(\d+)"><\/a>\n/m);
  const bySection = new Map<number, string>();
  for (let i = 1; i < parts.length; i += 2) bySection.set(Number(parts[i]), parts[i + 1]!.split(/^## /m)[0]!);
  return bySection;
}

describe("docs/rules.md", () => {
  it("has one section per rule, S1 to S36 in order, each with its anchor and heading", () => {
    const ids = [...sections().keys()];
    expect(ids).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
    for (const [id, text] of sections()) expect(text).toMatch(new RegExp(`^### S${id}: \\S`));
  });

  it("summarises each rule in 2 to 5 sentences", () => {
    for (const [id, text] of sections()) {
      const body = text.replace(/^### .*\n/, "").replace(/`[^`]*`/g, "code").replace(/\(e\.g\.|i\.e\./g, "");
      const sentences = body.split(/[.!?](?:\s|$)/).filter((s) => s.trim().length > 0);
      expect({ id, sentences: sentences.length }).toEqual({ id, sentences: expect.toSatisfy((n: number) => n >= 2 && n <= 5) });
    }
  });

  it.each([
    ["generator/", () => sources("generator")],
    ["generated/src/", () => sources(join("generated", "src"))],
    ["README.md and the guides", () => documentationFiles().map((file) => join(ROOT, file))],
  ])("every rule id cited in %s has a section", (_where, files) => {
    const cited = new Set(files().flatMap((file) => [...citedIds(readFileSync(file, "utf8"))]));
    expect(cited.size).toBeGreaterThan(0);
    const documented = new Set(sections().keys());
    expect([...cited].filter((id) => !documented.has(id)).map((id) => `S${id}`)).toEqual([]);
  });

  it("ships in the package unchanged, linked from README.md and the package README", () => {
    expect(readFileSync(join(ROOT, "generated", RULES_FILE), "utf8")).toBe(RULES);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain(`](${RULES_FILE})`);
    expect(readFileSync(join(ROOT, "generated", "README.md"), "utf8")).toContain(`](${RULES_FILE})`);
  });
});
