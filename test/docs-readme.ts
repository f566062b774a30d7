/**
 * The project's documentation, README.md and the guides in docs/, and its code
 * examples by section, for the tests that run or compile them as written.
 */
import { documentation } from "./support/documentation.js";
import { shellCommand } from "./support/readme-commands.js";

export { documentation, documentationFiles } from "./support/documentation.js";

/**
 * The documentation's section whose heading of `level` (`##` by default) starts with `heading`,
 * up to the next heading of that level or above (a guide's `# ` title ends the file before it).
 * Throws unless exactly one heading matches.
 */
export function readmeSection(heading: string, level = 2): string {
  const text = documentation();
  const marker = `\n${"#".repeat(level)} ${heading}`;
  const start = text.indexOf(marker);
  if (start < 0) throw new Error(`the documentation has no section "${marker.trim()}"`);
  if (text.indexOf(marker, start + 1) >= 0) throw new Error(`the documentation has more than one section "${marker.trim()}"`);
  const next = new RegExp(`\\n#{1,${level}} `, "g");
  next.lastIndex = start + 1;
  const end = next.exec(text)?.index;
  return text.slice(start, end);
}

/** The fenced blocks of one language in a section of the documentation (see `readmeSection`). */
export function readmeBlocks(heading: string, language: string, level = 2): string[] {
  return fencedBlocks(readmeSection(heading, level), language);
}

/** The fenced blocks of one language in a markdown text. */
export function fencedBlocks(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((m) => m[1]!);
}

/** The commands of a section's `sh` blocks, one per line, `#` comments dropped (as the README-commands registry reads them). */
export function readmeShellCommands(heading: string, level = 2): string[] {
  return readmeBlocks(heading, "sh", level).flatMap((block) => block.split("\n").map(shellCommand).filter((c) => c !== ""));
}
