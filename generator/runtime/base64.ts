/*
 * Standard base64 (RFC 4648, with padding) for terminal output (S12): each
 * chunk is decoded on its own and its bytes appended, never its text. The
 * portable codec below runs on any JavaScript runtime; where the runtime has
 * Node's `Buffer` (Node, Bun, Deno), its native codec does the byte work after
 * the same strict validation, several times faster on large chunks.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Any character outside the alphabet and `=` (a search for it is faster than matching the whole text). */
const NOT_BASE64 = /[^A-Za-z0-9+/=]/;
/** The 6-bit value of each ASCII character. */
const CODES = new Uint8Array(128);
for (let i = 0; i < ALPHABET.length; i++) CODES[ALPHABET.charCodeAt(i)] = i;
/** Every 12-bit value as its two base64 characters, built on first use. */
let pairs: string[] | undefined;

/** The part of Node's `Buffer` used here. */
interface NativeBuffer {
  from(text: string, encoding: "base64"): Uint8Array;
  from(buffer: ArrayBufferLike, byteOffset: number, length: number): { toString(encoding: "base64"): string };
}
const native = (globalThis as { Buffer?: NativeBuffer }).Buffer;

/** Whole 4-character groups, then an optional last group of 2 or 3 characters, padded or not. */
function isBase64(text: string): boolean {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const data = text.length - padding;
  if (data % 4 === 1 || (padding > 0 && text.length % 4 !== 0)) return false;
  const equals = text.indexOf("=");
  return (equals === -1 || equals === data) && !NOT_BASE64.test(text);
}

/** The bytes of `text`; padding may be omitted. `undefined` when `text` is not base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!isBase64(text)) return undefined;
  return native ? native.from(text, "base64") : decodePortable(text);
}

/** Standard base64 of `bytes`, padded. */
export function encodeBase64(bytes: Uint8Array): string {
  return native ? native.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64") : encodePortable(bytes);
}

/** The bytes of base64 `text` already checked by `isBase64`, in plain JavaScript. */
export function decodePortable(text: string): Uint8Array {
  const length = text.length - (text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0);
  const bytes = new Uint8Array((length * 3) >> 2);
  let bits = 0;
  let at = 0;
  for (let i = 0; i < length; i++) {
    bits = (bits << 6) | CODES[text.charCodeAt(i)]!;
    if ((i & 3) === 3) {
      bytes[at++] = bits >> 16;
      bytes[at++] = (bits >> 8) & 0xff;
      bytes[at++] = bits & 0xff;
      bits = 0;
    }
  }
  if ((length & 3) === 2) bytes[at] = bits >> 4;
  if ((length & 3) === 3) {
    bytes[at++] = bits >> 10;
    bytes[at] = (bits >> 2) & 0xff;
  }
  return bytes;
}

/** Standard base64 of `bytes`, padded, in plain JavaScript. */
export function encodePortable(bytes: Uint8Array): string {
  const table = (pairs ??= Array.from({ length: 4096 }, (_, n) => ALPHABET[n >> 6]! + ALPHABET[n & 63]!));
  const whole = bytes.length - (bytes.length % 3);
  let text = "";
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    text += table[n >> 12]! + table[n & 0xfff]!;
  }
  if (bytes.length - whole === 1) text += `${table[bytes[whole]! << 4]!}==`;
  if (bytes.length - whole === 2) {
    const n = (bytes[whole]! << 8) | bytes[whole + 1]!;
    text += `${table[n >> 4]!}${ALPHABET[(n & 0xf) << 2]!}=`;
  }
  return text;
}

/**
 * An output `appendOutput` made, split where the next chunk joins it: `data`
 * is `whole` (the base64 of its whole 3-byte groups) followed by `rest` (the
 * padded base64 of the 0-2 bytes after them, or "").
 */
interface OutputEnd {
  /** The output's `data`, this very string: a holder whose `data` was replaced is read again. */
  readonly data: string;
  readonly whole: string;
  readonly rest: string;
  /** How many pieces were joined onto `whole` since it was last made one flat string. */
  readonly joins: number;
}

/**
 * The split of each output object `appendOutput` made, by that object. With
 * it the next chunk never reads the output's text: reading the end of a
 * string built by `+` makes the engine copy all of it first, so appending
 * by reading it cost the output's size per chunk (README, "Chunks that append").
 */
const ends = new WeakMap<object, OutputEnd>();

/**
 * A string built by `+` keeps one node and one piece per join until it is read.
 * `whole` is made one flat string again (by reading a character of it) once it
 * holds more than one piece per this many characters: with small chunks the
 * pieces then stay a small share of the output, and the copy costs about this
 * many characters per chunk on average. (With chunks of 1 KiB and more it never
 * happens.)
 */
const CHARACTERS_PER_JOIN = 1024;

/**
 * `{ data }` holding the base64 of the bytes of `output.data` (none when
 * `output` holds no string `data`) followed by the bytes of `chunk` (S12).
 * `undefined` when `chunk` is not base64, or when the end of `output.data`
 * is not. An output this function made is extended without reading its
 * text, so a chunk costs its own size, however long the output; any other
 * output is read once.
 */
export function appendOutput(output: unknown, chunk: string): { data: string } | undefined {
  const added = decodeBase64(chunk);
  const end = added === undefined ? undefined : endOf(output);
  if (added === undefined || end === undefined) return undefined;
  // `rest` is this module's own encoding of at most 2 bytes: decoded without the checks a chunk needs.
  const restBytes = decodePortable(end.rest);
  const bytes = new Uint8Array(restBytes.length + added.length);
  bytes.set(restBytes);
  bytes.set(added, restBytes.length);
  const { whole, rest } = split(end.whole, bytes);
  let joins = end.joins + 1;
  if (joins * CHARACTERS_PER_JOIN > whole.length) {
    whole.charCodeAt(0);
    joins = 0;
  }
  const data = whole + rest;
  const made = { data };
  ends.set(made, { data, whole, rest, joins });
  return made;
}

/** `whole` followed by the base64 of `bytes`, split where a next chunk would join it. */
function split(whole: string, bytes: Uint8Array): { whole: string; rest: string } {
  const cut = bytes.length - (bytes.length % 3);
  return { whole: whole + encodeBase64(bytes.subarray(0, cut)), rest: cut < bytes.length ? encodeBase64(bytes.subarray(cut)) : "" };
}

/**
 * Where `output` ends: as recorded when this module made it, else read from
 * its text, whose last 4-character group is decoded again (all of the text
 * when it is not whole groups of 4, as unpadded base64 is).
 */
function endOf(output: unknown): OutputEnd | undefined {
  const holder = typeof output === "object" && output !== null && !Array.isArray(output) ? (output as { data?: unknown }) : undefined;
  const data = typeof holder?.data === "string" ? holder.data : "";
  const known = holder === undefined ? undefined : ends.get(holder);
  if (known !== undefined && known.data === data) return known;
  const cut = data.length % 4 === 0 ? Math.max(0, data.length - 4) : 0;
  const tail = decodeBase64(data.slice(cut));
  return tail === undefined ? undefined : { data, ...split(data.slice(0, cut), tail), joins: 0 };
}
