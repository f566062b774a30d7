/** A problem found in a wire value, located by JSON pointer. */
export interface Issue {
  /** JSON pointer (RFC 6901) of the offending value; `""` is the whole value. */
  readonly path: string;
  readonly message: string;
}

/** The outcome of `parse.X` / `validate.X`: never a throw. */
export type Result<T> =
  | {
      readonly ok: true;
      readonly value: T;
      /** Only from `parse.X(value, { forgiven: true })`: what the tolerant decoding dropped, skipped or read otherwise. */
      readonly forgiven?: Issue[];
    }
  | { readonly ok: false; readonly issues: Issue[] };
