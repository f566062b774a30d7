/** Runs in every test file (vitest.config.ts, `setupFiles`): what a file's tests leave in the temp dir goes when the file ends. */
import { afterAll } from "vitest";
import { removeTempDirs } from "./temp-dirs.js";

afterAll(removeTempDirs);
