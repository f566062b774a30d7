/*
 * Standard base64 (RFC 4648, with padding) for terminal output (S12): each
 * chunk is decoded on its own and its bytes appended, never its text. No
 * dependency on `atob`/`Buffer`, so it runs on any JavaScript runtime.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const CODES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) CODES[ALPHABET.charCodeAt(i)] = i;

/** The bytes of `text`; padding may be omitted. `undefined` when `text` is not base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const body = text.endsWith("==") ? text.slice(0, -2) : text.endsWith("=") ? text.slice(0, -1) : text;
  if (body.length % 4 === 1 || (body.length !== text.length && text.length % 4 !== 0)) return undefined;
  const bytes = new Uint8Array((body.length * 3) >> 2);
  let bits = 0;
  let count = 0;
  let at = 0;
  for (let i = 0; i < body.length; i++) {
    const code = body.charCodeAt(i);
    const value = code < 128 ? CODES[code]! : -1;
    if (value < 0) return undefined;
    bits = ((bits << 6) | value) & 0xffff;
    count += 6;
    if (count >= 8) {
      count -= 8;
      bytes[at++] = (bits >> count) & 0xff;
    }
  }
  return bytes;
}

/** Standard base64 of `bytes`, padded. */
export function encodeBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]!;
    out += i + 1 < bytes.length ? ALPHABET[(n >> 6) & 63]! : "=";
    out += i + 2 < bytes.length ? ALPHABET[n & 63]! : "=";
  }
  return out;
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
