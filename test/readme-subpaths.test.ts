/**
 * Every subpath of acp-bindings that a README names is one the package exports:
 * README.md (the project's) and generated/README.md (the package's own) against
 * the "exports" of generated/package.json. A subpath that is not exported fails
 * at import with ERR_PACKAGE_PATH_NOT_EXPORTED, so a README that names one sends
 * its reader into that error (issue 33: `/parse-owned` for `/parseOwned`).
 *
 * What counts as naming a subpath:
 * - a quoted or backticked specifier, `"acp-bindings/v2/parse"`, `` `acp-bindings/v2` ``;
 * - a shorthand in a list headed by one, `` `acp-bindings/v2/unstable/parse`, `/validate` ``
 *   or `` `acp-bindings/v2` (or `/parse`) ``: a backticked `/x` separated from the head
 *   (or the shorthand before it) by commas, spaces, `(`, "or", "and" only; it is read as
 *   a sibling (`acp-bindings/v2/unstable/validate`) or a child (`acp-bindings/v2/parse`)
 *   of the head, and one of the two must be exported;
 * - placeholders: `<surface>` stands for every surface, each of which must have a match;
 *   any other `<name>` for one path segment.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_NAME } from "../generator/emit/package-layout.js";
import { SURFACES } from "../generator/surfaces.js";
import { documentationFiles } from "./support/documentation.js";
import { ROOT } from "./support/ir.js";

/** A subpath a README names: the readings it may have (any one exported will do) and where it is. */
interface Named {
  readonly text: string;
  readonly index: number;
  readonly line: number;
  readonly readings: readonly string[];
}

const PREFIX = `${PACKAGE_NAME}/`;
const SHORTHAND = /^\/[\w.-]+(?:\/[\w.-]+)*$/;
/** What may stand between the members of a list of subpaths. */
const LIST_SEPARATOR = /^[\s,(]*(?:(?:or|and)\s+)?$/;

/** The package's subpaths as specifiers (`acp-bindings/v2/parse`), from generated/package.json. */
function exportedSpecifiers(): Set<string> {
  const manifest = JSON.parse(readFileSync(join(ROOT, "generated", "package.json"), "utf8")) as { exports: Record<string, unknown> };
  return new Set(Object.keys(manifest.exports).map((key) => PACKAGE_NAME + key.slice(1)));
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

/** Fenced code blocks blanked out (newlines kept, so line numbers hold): their backticks are not code spans. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, (block) => block.replace(/[^\n]/g, " "));
}

/** Quoted or backticked specifiers anywhere, code blocks included. */
function fullSpecifiers(markdown: string): Named[] {
  const found = [...markdown.matchAll(/["'`](acp-bindings\/[^"'`\s]+)["'`]/g)];
  return found.map((m) => ({ text: m[1]!, index: m.index, line: lineOf(markdown, m.index), readings: [m[1]!] }));
}

/** Shorthands (`/validate`) in lists headed by a backticked specifier, each with its sibling and child readings. */
function shorthands(markdown: string): Named[] {
  const prose = withoutFences(markdown);
  const named: Named[] = [];
  let head: string | undefined;
  let end = 0;
  for (const span of prose.matchAll(/`([^`\n]+)`/g)) {
    const content = span[1]!;
    const listed = head !== undefined && LIST_SEPARATOR.test(prose.slice(end, span.index));
    if (content.startsWith(PREFIX)) head = content;
    else if (listed && SHORTHAND.test(content)) named.push({ text: content, index: span.index, line: lineOf(prose, span.index), readings: shorthandReadings(head!, content) });
    else head = undefined;
    end = span.index + span[0].length;
  }
  return named;
}

/** `/x` after `acp-bindings/a/b`: `acp-bindings/a/x` (a sibling) or `acp-bindings/a/b/x` (a child). */
function shorthandReadings(head: string, shorthand: string): string[] {
  return [head.slice(0, head.lastIndexOf("/")) + shorthand, head + shorthand];
}

/** Every subpath a README names, in document order. */
function namedSubpaths(markdown: string): Named[] {
  return [...fullSpecifiers(markdown), ...shorthands(markdown)].sort((a, b) => a.index - b.index);
}

/** A specifier with placeholders as one pattern per surface (`<surface>` filled in), or the specifier itself. */
function patterns(specifier: string): RegExp[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const surfaces = specifier.includes("<surface>") ? SURFACES.map((s) => s.surface) : [undefined];
  return surfaces.map((surface) => {
    const filled = surface === undefined ? specifier : specifier.replaceAll("<surface>", surface);
    return new RegExp(`^${filled.split(/<[\w-]+>/).map(escape).join("[^/]+")}$`);
  });
}

/** True when one reading of `named` is exported (for a placeholder: a match for every surface). */
function isExported(named: Named, exported: ReadonlySet<string>): boolean {
  return named.readings.some((reading) => patterns(reading).every((pattern) => [...exported].some((e) => pattern.test(e))));
}

/** The named subpaths that are not exported, as `line N: text`. */
function unexported(markdown: string, exported: ReadonlySet<string>): string[] {
  return namedSubpaths(markdown)
    .filter((named) => !isExported(named, exported))
    .map((named) => `line ${named.line}: ${named.text}`);
}

describe("subpaths the READMEs name are in generated/package.json's exports", () => {
  const exported = exportedSpecifiers();

  it.each([...documentationFiles(), "generated/README.md"].map((file) => [file]))("%s", (file) => {
    const markdown = readFileSync(join(ROOT, file), "utf8");
    expect(unexported(markdown, exported)).toEqual([]);
  });

  it("the READMEs and guides name subpaths (this test reads them)", () => {
    for (const file of ["README.md", "docs/package.md", "generated/README.md"]) expect(namedSubpaths(readFileSync(join(ROOT, file), "utf8")).length, file).toBeGreaterThan(2);
  });

  it("reads specifiers, shorthand lists and placeholders", () => {
    const markdown = [
      'import { parse } from "acp-bindings/v2/unstable";',
      "Entry points `acp-bindings/v1`, `/v1/unstable`, `/v2`; each namespace also on its own",
      "(`acp-bindings/v2/unstable/parse`, `/validate`, `/parse-owned`: esbuild can tree-shake those),",
      "`acp-bindings/v2` (or `/parse`), `acp-bindings/<surface>/standard`, `acp-bindings/<surface>/<namespace>`,",
      "`acp-bindings/<surface>/nope`, and a path `/work/x` that is not in a list.",
    ].join("\n");
    expect(namedSubpaths(markdown).map((n) => n.text)).toEqual([
      "acp-bindings/v2/unstable",
      "acp-bindings/v1",
      "/v1/unstable",
      "/v2",
      "acp-bindings/v2/unstable/parse",
      "/validate",
      "/parse-owned",
      "acp-bindings/v2",
      "/parse",
      "acp-bindings/<surface>/standard",
      "acp-bindings/<surface>/<namespace>",
      "acp-bindings/<surface>/nope",
    ]);
    expect(unexported(markdown, exported)).toEqual(["line 3: /parse-owned", "line 5: acp-bindings/<surface>/nope"]);
  });
});
