/**
 * A strict reader of the block YAML a GitHub Actions workflow uses: mappings,
 * sequences (`- item`, `- key: value`), literal block scalars (`|`), plain,
 * double- and single-quoted scalars, `{}` and `[]`, comments. Anything else
 * (tab indentation, other flow collections, a bad indent, a duplicate key, a
 * line that is neither a key nor an item) throws with its line number, so a
 * test that reads the workflow also lints its syntax.
 */

interface Line {
  readonly number: number;
  readonly indent: number;
  readonly text: string;
  readonly raw: string;
}

type Value = string | null | Value[] | { [key: string]: Value };

/** Parses `source`; throws `line N: ...` on anything outside the subset. */
export function parseYamlSubset(source: string): Value {
  const lines = source.split("\n").map((raw, i): Line => {
    const indentText = /^[ \t]*/.exec(raw)![0];
    if (indentText.includes("\t") && raw.trim() !== "") throw new Error(`line ${i + 1}: tab in indentation`);
    return { number: i + 1, indent: indentText.length, text: raw.trim(), raw };
  });
  const reader = { lines, at: 0 };
  skipBlank(reader);
  if (reader.at >= lines.length) return null;
  const value = parseBlock(reader, lines[reader.at]!.indent);
  skipBlank(reader);
  if (reader.at < lines.length) throw new Error(`line ${lines[reader.at]!.number}: unexpected indentation`);
  return value;
}

interface Reader {
  readonly lines: readonly Line[];
  at: number;
}

function isBlank(line: Line): boolean {
  return line.text === "" || line.text.startsWith("#");
}

function skipBlank(reader: Reader): void {
  while (reader.at < reader.lines.length && isBlank(reader.lines[reader.at]!)) reader.at++;
}

function isItem(text: string): boolean {
  return text === "-" || text.startsWith("- ");
}

function parseBlock(reader: Reader, indent: number): Value {
  return isItem(reader.lines[reader.at]!.text) ? parseSequence(reader, indent) : parseMapping(reader, indent);
}

function parseSequence(reader: Reader, indent: number): Value[] {
  const items: Value[] = [];
  for (skipBlank(reader); reader.at < reader.lines.length; skipBlank(reader)) {
    const line = reader.lines[reader.at]!;
    if (line.indent !== indent || !isItem(line.text)) break;
    const rest = line.text.slice(1).trim();
    if (rest === "") {
      reader.at++;
      skipBlank(reader);
      items.push(nestedOrNull(reader, indent));
    } else if (KEY.test(rest)) {
      // `- key: value`: a mapping whose first line is the rest of this one.
      const inner = indent + (line.text.length - rest.length);
      (reader.lines as Line[])[reader.at] = { ...line, indent: inner, text: rest };
      items.push(parseMapping(reader, inner));
    } else {
      items.push(scalar(rest, line.number));
      reader.at++;
    }
  }
  return items;
}

const KEY = /^([A-Za-z0-9_$][\w.\-$]*|"[^"]*"|'[^']*'):(\s+(.*))?$/;

function parseMapping(reader: Reader, indent: number): { [key: string]: Value } {
  const map: { [key: string]: Value } = {};
  for (skipBlank(reader); reader.at < reader.lines.length; skipBlank(reader)) {
    const line = reader.lines[reader.at]!;
    if (line.indent < indent) break;
    if (line.indent > indent) throw new Error(`line ${line.number}: unexpected indentation`);
    if (isItem(line.text)) break;
    const match = KEY.exec(line.text);
    if (!match) throw new Error(`line ${line.number}: expected \`key: value\`, got ${JSON.stringify(line.text)}`);
    const key = match[1]!.replace(/^["']|["']$/g, "");
    if (Object.hasOwn(map, key)) throw new Error(`line ${line.number}: duplicate key ${JSON.stringify(key)}`);
    const value = stripComment(match[3] ?? "");
    reader.at++;
    if (value === "|" || value === "|-") map[key] = blockScalar(reader, indent, value === "|");
    else if (value !== "") map[key] = scalar(value, line.number);
    else {
      skipBlank(reader);
      map[key] = nestedOrNull(reader, indent, true);
    }
  }
  return map;
}

/** The block below a key or item: deeper lines, or (for a key) a sequence at the same indent; else null. */
function nestedOrNull(reader: Reader, indent: number, sameIndentSequence = false): Value {
  const next = reader.lines[reader.at];
  if (next && next.indent > indent) return parseBlock(reader, next.indent);
  if (next && sameIndentSequence && next.indent === indent && isItem(next.text)) return parseSequence(reader, indent);
  return null;
}

/** The lines of a `|` scalar: every following line deeper than `indent` (or blank), less their common indent. */
function blockScalar(reader: Reader, indent: number, keepNewline: boolean): string {
  const body: Line[] = [];
  while (reader.at < reader.lines.length) {
    const line = reader.lines[reader.at]!;
    if (line.text !== "" && line.indent <= indent) break;
    body.push(line);
    reader.at++;
  }
  while (body.length && body.at(-1)!.text === "") body.pop();
  const cut = Math.min(...body.filter((l) => l.text !== "").map((l) => l.indent));
  return body.map((l) => l.raw.slice(cut)).join("\n") + (keepNewline ? "\n" : "");
}

function stripComment(text: string): string {
  if (text.startsWith('"') || text.startsWith("'")) return text;
  return text.replace(/\s+#.*$/, "").trim();
}

function scalar(text: string, number: number): Value {
  const value = stripComment(text);
  if (value.startsWith('"')) {
    if (!value.endsWith('"') || value.length < 2) throw new Error(`line ${number}: unterminated string ${value}`);
    return JSON.parse(value) as string;
  }
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new Error(`line ${number}: unterminated string ${value}`);
    return value.slice(1, -1).replaceAll("''", "'");
  }
  if (value === "{}") return {};
  if (value === "[]") return [];
  if (/^[[{&*!|>%@`]/.test(value)) throw new Error(`line ${number}: not in the workflow subset: ${value}`);
  return value;
}
