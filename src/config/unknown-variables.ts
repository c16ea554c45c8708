/**
 * MNEMO_* variables nothing reads. A typo leaves a setting at its default without a word
 * (MNEMO_API_TOKN=…: a service with no token at all), so start-up warns about each one by
 * name, with the nearest known name when one is close; it never stops the service, and
 * never shows the value (it may be a secret).
 */
import { clientEnvSchema } from './client-config.js'
import { envSchema } from './env-schema.js'

/** Read by the test suite and CI (.ci/run, the ONNX test), not by the service. */
const TOOLING_VARIABLES = ['MNEMO_CI_NODE', 'MNEMO_TEST_ONNX_MODEL']

/** What the service, the `mnemo` client commands and the tooling read. */
export const KNOWN_VARIABLES: readonly string[] = [
  ...new Set([...Object.keys(envSchema.shape), ...Object.keys(clientEnvSchema.shape), ...TOOLING_VARIABLES]),
].sort()

export type UnknownVariable = { name: string; suggestion: string | undefined }

/**
 * Edit distance where swapping two neighbouring characters counts as one edit, like
 * inserting, deleting or replacing one (optimal string alignment).
 */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  )
  const at = (i: number, j: number) => (d[i] as number[])[j] as number
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1)
      ;(d[i] as number[])[j] = best
    }
  }
  return at(a.length, b.length)
}

/**
 * The known name nearest to `name` (case aside), if it is close: at most one edit per three
 * characters after the MNEMO_ prefix (at least one), so MNEMO_EMBEDDING_MODEL finds
 * MNEMO_EMBED_MODEL but MNEMO_FOO finds nothing.
 */
export function nearestVariable(name: string, known: readonly string[] = KNOWN_VARIABLES): string | undefined {
  const upper = name.toUpperCase()
  const allowed = Math.max(1, Math.floor((upper.length - 'MNEMO_'.length) / 3))
  let best: { name: string; distance: number } | undefined
  for (const candidate of known) {
    const distance = editDistance(upper, candidate)
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { name: candidate, distance }
  }
  return best?.name
}

/** Variables named MNEMO_* (in any case) that nothing reads, sorted, each with its nearest known name. */
export function unknownVariables(
  env: Record<string, string | undefined>,
  known: readonly string[] = KNOWN_VARIABLES,
): UnknownVariable[] {
  const knownSet = new Set(known)
  return Object.keys(env)
    .filter((name) => name.toUpperCase().startsWith('MNEMO_') && !knownSet.has(name))
    .sort()
    .map((name) => ({ name, suggestion: nearestVariable(name, known) }))
}

/** The warning for one unknown variable. */
export const unknownVariableWarning = (v: UnknownVariable): string =>
  `unknown setting ${v.name} is ignored` +
  (v.suggestion ? `: did you mean ${v.suggestion}?` : ' (the settings are listed in .env.example)')
