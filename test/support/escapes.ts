/**
 * What reaches the process unhandled while a test file runs: uncaught
 * exceptions and unhandled rejections (issue 36: nothing from the wire may
 * end up there). Registers vitest hooks; read the returned list in a test.
 */
import { afterAll, beforeAll } from "vitest";

/** The list every uncaught exception and unhandled rejection of this file's tests is pushed to. */
export function watchEscapes(): readonly unknown[] {
  const escaped: unknown[] = [];
  const onUnhandled = (error: unknown) => void escaped.push(error);
  beforeAll(() => {
    process.on("unhandledRejection", onUnhandled);
    process.on("uncaughtException", onUnhandled);
  });
  afterAll(() => {
    process.off("unhandledRejection", onUnhandled);
    process.off("uncaughtException", onUnhandled);
  });
  return escaped;
}
