/** The project's documentation: README.md and the guides in docs/ (test/docs-readme.ts reads sections of it). */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./ir.js";

/** The documentation's files, relative to the project: README.md, then every guide docs/*.md (the histories under docs/history/ are not guides). */
export function documentationFiles(): string[] {
  const guides = readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`);
  return ["README.md", ...guides];
}

/** The documentation as one text: each file in the order of `documentationFiles`, each starting on a line of its own with its `# ` title. */
export function documentation(): string {
  return documentationFiles()
    .map((file) => readFileSync(join(ROOT, file), "utf8").replace(/\n*$/, "\n"))
    .join("\n");
}
