import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    setupFiles: ["test/support/setup.ts"],
    testTimeout: 60_000,
    // A hook that starts processes or builds waits as long as a test may: the suite must pass on a busy machine.
    hookTimeout: 120_000,
  },
});
