/** What the account values store refused: a stable code beside the message an operator reads. */
export type AccountValueErrorCode =
  /** The name is not an environment variable's name (upper case letters, digits, `_`; not a digit first). */
  | 'invalid_name'
  /** The name is one the gateway sets itself, or one that changes which program runs or how. */
  | 'reserved_name'
  /** The value is empty, holds a NUL character, or is larger than `accountValues.maxValueBytes`. */
  | 'invalid_value'
  /** The subject holds `accountValues.maxNamesPerSubject` names already. */
  | 'too_many_names'
  /** The subject is empty. */
  | 'invalid_subject'
  /** Another writer held the subject's record for longer than `accountValues.writeWaitMs`. */
  | 'busy'
  /** A stored value does not open with this data key (another key, or a value moved to another subject or name). */
  | 'unreadable'

/**
 * A refused operation on per-account values (`mcp-auth user-env`, the gateway reading them). A
 * local error: the CLI prints the message; `code` tells the refusals apart without reading it.
 */
export class AccountValueError extends Error {
  override name = 'AccountValueError'
  readonly code: AccountValueErrorCode

  constructor(code: AccountValueErrorCode, message: string, options?: ErrorOptions) {
    super(message, options)
    this.code = code
  }
}
