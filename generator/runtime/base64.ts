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
 * base64 of the bytes of `stored` followed by the bytes of `chunk` (S12).
 * Only the last 4-character group of `stored` is decoded again, so appending
 * costs the chunk's size, not the output's. `undefined` when `chunk` (or that
 * last group) is not base64.
 */
export function appendBase64(stored: string, chunk: string): string | undefined {
  const cut = stored.length % 4 === 0 ? Math.max(0, stored.length - 4) : 0;
  const tail = decodeBase64(stored.slice(cut));
  const added = decodeBase64(chunk);
  if (tail === undefined || added === undefined) return undefined;
  const bytes = new Uint8Array(tail.length + added.length);
  bytes.set(tail);
  bytes.set(added, tail.length);
  return stored.slice(0, cut) + encodeBase64(bytes);
}
