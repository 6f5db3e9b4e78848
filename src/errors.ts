/**
 * The one error type of the vault. Every operation that cannot continue throws a
 * {@link VaultError} with a stable `code`; adapters (CLI, MCP, hooks) map the code to an
 * exit code or a protocol error. Findings that do not stop an operation (doctor problems,
 * scan diagnostics) are values, not errors.
 */

/** Codes of a document that cannot be parsed or validated (also diagnostic codes, see diagnostics.ts). */
export const DOCUMENT_ERROR_CODES = [
  'invalid-utf8',
  'document-too-large',
  'missing-frontmatter',
  'frontmatter-language',
  'unclosed-frontmatter',
  'invalid-frontmatter',
  'yaml-alias',
  'yaml-tag',
  'frontmatter-not-object',
  'unknown-field',
  'duplicate-field',
  'missing-field',
  'invalid-field',
  'invalid-body',
  'body-too-large',
] as const;
export type DocumentErrorCode = (typeof DOCUMENT_ERROR_CODES)[number];

/** Stable error codes. Never rename one: scripts and MCP clients match on them. */
export type VaultErrorCode =
  // document (parse / validate one memory file)
  | DocumentErrorCode
  // writes
  | 'suspected-secret'
  | 'already-exists'
  | 'symlink-refused'
  | 'path-escape'
  | 'gitignore-mismatch'
  | 'duplicate-memory'
  // reads
  | 'not-found'
  | 'ambiguous'
  | 'read-incomplete'
  // input / environment
  | 'invalid-input'
  | 'usage'
  | 'io-error'
  | 'no-vault';

/** Process exit codes used by the CLI, documented in `vault --help` and the README. */
export const EXIT = {
  ok: 0,
  /** doctor found errors (or warnings with --strict); fmt --check would change a file */
  findings: 1,
  /** bad flags or arguments */
  usage: 2,
  /** input rejected by a rule (field, size, secret, invalid document) */
  invalid: 3,
  /** no memory with that id */
  notFound: 4,
  /** id already exists, or two files claim one id */
  conflict: 5,
  /** fail-closed read: the scan was incomplete, so "not found" cannot be claimed */
  incomplete: 6,
  /** file system or environment failure (permissions, symlink, .gitignore, no vault here) */
  io: 7,
  /** a bug: please report it */
  internal: 70,
} as const;

/**
 * What each exit code means, as `vault --help` (and so docs/cli.md) and the README's exit-code
 * table say it: the one wording (a test holds the README's table to it). Markdown backticks;
 * the help text drops them.
 */
export const EXIT_MEANINGS: ReadonlyArray<readonly [code: number, meaning: string]> = [
  [EXIT.ok, 'success'],
  [
    EXIT.findings,
    'findings: doctor found errors (or warnings with `--strict`); `fmt --check` would change files; `vault mcp` refused to start (no or bad `ECC_MEMORY_HARNESS`)',
  ],
  [EXIT.usage, 'usage: unknown command or flag, missing or conflicting arguments'],
  [EXIT.invalid, 'invalid input: a field rule, a size limit, a suspected secret, an invalid document'],
  [EXIT.notFound, 'not found: no memory with that id'],
  [EXIT.conflict, 'conflict: the id already exists (writes are create-only), or two files claim one id'],
  [EXIT.incomplete, 'incomplete: the vault could not be fully read, so a lookup refuses to say "not found"'],
  [EXIT.io, 'file system or environment problem: permissions, symlinks, project `.gitignore`, no vault here (project and team writes outside a vault)'],
  [EXIT.internal, 'internal error (a bug; please report it)'],
];

/** The exit code of each error code (docs/format.md's error table is held to it by a test). */
export const EXIT_BY_CODE: Readonly<Record<VaultErrorCode, number>> = {
  'invalid-utf8': EXIT.invalid,
  'document-too-large': EXIT.invalid,
  'missing-frontmatter': EXIT.invalid,
  'frontmatter-language': EXIT.invalid,
  'unclosed-frontmatter': EXIT.invalid,
  'invalid-frontmatter': EXIT.invalid,
  'yaml-alias': EXIT.invalid,
  'yaml-tag': EXIT.invalid,
  'frontmatter-not-object': EXIT.invalid,
  'unknown-field': EXIT.invalid,
  'duplicate-field': EXIT.invalid,
  'missing-field': EXIT.invalid,
  'invalid-field': EXIT.invalid,
  'invalid-body': EXIT.invalid,
  'body-too-large': EXIT.invalid,
  'suspected-secret': EXIT.invalid,
  'invalid-input': EXIT.invalid,
  'duplicate-memory': EXIT.conflict,
  'already-exists': EXIT.conflict,
  ambiguous: EXIT.conflict,
  'not-found': EXIT.notFound,
  'read-incomplete': EXIT.incomplete,
  'symlink-refused': EXIT.io,
  'path-escape': EXIT.io,
  'gitignore-mismatch': EXIT.io,
  'io-error': EXIT.io,
  'no-vault': EXIT.io,
  usage: EXIT.usage,
};

/** Optional structured details of a {@link VaultError}. */
export interface VaultErrorDetails {
  /** frontmatter key (snake_case, as in the file) or input name the error is about */
  field?: string;
  /** short name of the rule that failed, e.g. "maxLength 200" */
  rule?: string;
  /** how to fix it, one sentence */
  hint?: string;
  /** 1-based line in the document, where it applies */
  line?: number;
  /** underlying error, kept for debugging; never printed to users */
  cause?: unknown;
  /** further problems of the same input found by the same check (e.g. every bad frontmatter field), after this one */
  others?: readonly VaultError[];
}

/** An operation failed for a known reason. `message` never contains a secret value. */
export class VaultError extends Error {
  readonly code: VaultErrorCode;
  readonly field: string | undefined;
  readonly rule: string | undefined;
  readonly hint: string | undefined;
  readonly line: number | undefined;
  /** further problems found by the same check, after this one (see {@link VaultErrorDetails.others}) */
  readonly others: readonly VaultError[];

  constructor(code: VaultErrorCode, message: string, details: VaultErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'VaultError';
    this.code = code;
    this.field = details.field;
    this.rule = details.rule;
    this.hint = details.hint;
    this.line = details.line;
    this.others = details.others ?? [];
  }

  /** The CLI exit code for this error (see {@link EXIT}). */
  get exitCode(): number {
    return EXIT_BY_CODE[this.code];
  }

  /** A plain object for `--json` output and MCP errors. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.field !== undefined) out.field = this.field;
    if (this.rule !== undefined) out.rule = this.rule;
    if (this.line !== undefined) out.line = this.line;
    if (this.hint !== undefined) out.hint = this.hint;
    return out;
  }
}

/** True when `err` is a {@link VaultError} (also across module copies). */
export function isVaultError(err: unknown): err is VaultError {
  return err instanceof VaultError || (err instanceof Error && err.name === 'VaultError' && 'code' in err);
}
