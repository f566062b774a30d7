/** Code examples of the repository README, by section, for the tests that run or compile them as written. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./support/ir.js";
import { shellCommand } from "./support/readme-commands.js";

/** The README section whose heading of `level` (`##` by default) starts with `heading`, up to the next heading of that level or above. */
export function readmeSection(heading: string, level = 2): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const marker = `\n${"#".repeat(level)} ${heading}`;
  const start = readme.indexOf(marker);
  if (start < 0) throw new Error(`README has no section "${marker.trim()}"`);
  const next = new RegExp(`\\n#{1,${level}} `, "g");
  next.lastIndex = start + 1;
  const end = next.exec(readme)?.index;
  return readme.slice(start, end);
}

/** The fenced blocks of one language in the README section whose heading starts with `heading`. */
export function readmeBlocks(heading: string, language: string, level = 2): string[] {
  return [...readmeSection(heading, level).matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]!);
}

/** The commands of a section's `sh` blocks, one per line, `#` comments dropped (as the README-commands registry reads them). */
export function readmeShellCommands(heading: string, level = 2): string[] {
  return readmeBlocks(heading, "sh", level).flatMap((block) => block.split("\n").map(shellCommand).filter((c) => c !== ""));
}
