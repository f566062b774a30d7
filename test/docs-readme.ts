/** Code examples of the repository README, by section, for the tests that run or compile them as written. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./support/ir.js";

/** The fenced blocks of one language in the README section whose heading starts with `heading`. */
export function readmeBlocks(heading: string, language: string): string[] {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n## ${heading}`);
  if (start < 0) throw new Error(`README has no section "## ${heading}"`);
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]!);
}
