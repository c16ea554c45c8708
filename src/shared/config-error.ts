/**
 * The one error for a setting that stops start-up (code CONFIG_INVALID): loadConfig's issues,
 * and settings that only prove wrong when used (a model directory, the vector extension, the
 * data dir, the database). Its message names the variable to fix, so the entry points print
 * it alone, without a stack.
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID'
  /** Every problem found, one line each naming its variable (the message alone, by default). */
  readonly issues: string[]
  constructor(message: string, options: { cause?: unknown; issues?: string[] } = {}) {
    super(message, { cause: options.cause })
    this.name = 'ConfigError'
    this.issues = options.issues ?? [message]
  }
}

/** A configuration's problems all at once, so one start-up attempt shows every one of them. */
export const invalidConfiguration = (issues: string[]): ConfigError =>
  new ConfigError(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`, { issues })
