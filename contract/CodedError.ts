/**
 * The one base of every typed error the project throws for misuse or I/O failure (a command's
 * rejection is a reply, never an error; a divergence is data). Each subclass keeps its own name,
 * its own union of stable codes and its own message, which names the bad value; the base only
 * holds what they all share, so that one guard (`isCodedError`, `hasCode`) tells them apart from
 * any other throwable. This file imports nothing: the CLI loads it before any command, and
 * `jobcheck --help` must stay cheap (docs/startup-bench.md).
 */

/**
 * An error with a stable `code` from a closed union, a message naming the bad value, and `cause`
 * passed through when it wraps another error. Subclasses set `name` (`override name = 'X' as const`).
 */
export abstract class CodedError<Code extends string = string> extends Error {
  abstract override readonly name: string;
  /** The stable code: what a caller matches on; the message is for people. */
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Whether a thrown value is one of the project's coded errors (any subclass of CodedError). Pure. */
export const isCodedError = (error: unknown): error is CodedError => error instanceof CodedError;

/**
 * Whether a thrown value is a coded error with one of the given codes, narrowing it to the
 * subclass that carries them when a class is given: `hasCode(e, 'store_exists', SqliteStoreError)`.
 * Pure.
 */
export function hasCode<E extends CodedError, C extends E['code']>(
  error: unknown,
  code: C | readonly C[],
  errorClass?: abstract new (...args: never[]) => E,
): error is E & { readonly code: C } {
  if (!(error instanceof (errorClass ?? CodedError))) return false;
  const codes: readonly string[] = typeof code === 'string' ? [code] : code;
  return codes.includes((error as CodedError).code);
}

/** The `message` of a thrown value when it has a string one, else the value as text. Pure. */
export function messageOf(thrown: unknown): string {
  return typeof thrown === 'object' && thrown !== null && 'message' in thrown && typeof thrown.message === 'string'
    ? thrown.message
    : String(thrown);
}

/** The `code` of a thrown value (a Node system error's `ENOENT`, a driver's SQLSTATE), or undefined. Pure. */
export function codeOf(thrown: unknown): unknown {
  return typeof thrown === 'object' && thrown !== null && 'code' in thrown ? thrown.code : undefined;
}

/**
 * A thrown value told in one line for a story, without the class names of the harness: a coded
 * error by its code and message (`timeout: no reply within 5000 ms; ...`), another error by its
 * name and message (`TypeError: x is not a function`; a plain `Error` by its message), anything
 * else as a string. Pure.
 */
export function thrownText(error: unknown): string {
  if (error instanceof CodedError)
    return error.message.startsWith(`${error.code}:`) ? error.message : `${error.code}: ${error.message}`;
  if (error instanceof Error) return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}
