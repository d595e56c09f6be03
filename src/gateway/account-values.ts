/**
 * The values an operator set for one subject (the token's `sub`), handed to that subject's
 * children as environment variables (`mcp-auth user-env set`). Kept sealed in the store.
 */
export interface AccountValues {
  /** Every value set for `subject`, opened; {} when none. Called once per child start. */
  valuesFor(subject: string): Promise<Readonly<Record<string, string>>>
}
