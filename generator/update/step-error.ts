/**
 * The failure of one step of `acp-codegen update`: which step, what went
 * wrong, and what a person edits or checks before running it again.
 */
export class UpdateStepError extends Error {
  constructor(
    /** The step's name, as the progress lines print it (`fetch`, `generate`, `test`, ...). */
    readonly step: string,
    message: string,
    /** The file or table entry to edit, or what to check, before running the update again. */
    readonly fix: string,
  ) {
    super(message);
    this.name = "UpdateStepError";
  }
}

/** The message of a thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
