/** The issues loadConfig lists for an environment it refuses (fails the test if it accepts it). */
import { loadConfig } from '../../src/config/load-config.js'
import { ConfigError } from '../../src/shared/config-error.js'

export function configIssues(env: Record<string, string>, cwd: string): string[] {
  try {
    loadConfig(env, cwd)
  } catch (err) {
    if (err instanceof ConfigError) return err.issues
    throw err
  }
  throw new Error('expected a ConfigError')
}
