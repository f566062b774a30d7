/**
 * What the pipeline produces, shared by the emitters (which make files) and
 * the writer (which puts them on disk), so that no emitter imports the writer.
 */

/** One output file, path relative to the output directory (always `/`-separated). */
export interface OutputFile {
  readonly path: string;
  readonly content: string;
}

/**
 * The package's build output (`npm run build`) inside the output directory.
 * It is never generated and never committed, so `--check` and the golden
 * test do not count it; a new `generate` replaces it with the rest.
 */
export const BUILD_DIR = "dist";
