/**
 * The admin token and the agent tokens, each from its variable or from a file named by the
 * `_FILE` variant (a Docker or Kubernetes secret): MNEMO_API_TOKEN / MNEMO_API_TOKEN_FILE,
 * MNEMO_AGENT_TOKENS / MNEMO_AGENT_TOKENS_FILE. Setting both of a pair is an error. A file's
 * one trailing newline (`\n` or `\r\n`, as `echo` and most secret tools write it) is not
 * part of the token. No issue ever repeats a token.
 */
import fs from 'node:fs'
import path from 'node:path'
import { checkDistinctTokens, parseAgentTokens, tokenProblem } from './agent-tokens.js'
import type { Env } from './env-schema.js'

/** A secret file's text without its one trailing newline; undefined (and an issue) when unreadable. */
export function readSecretFile(variable: string, file: string, cwd: string, issues: string[]): string | undefined {
  const abs = path.resolve(cwd, file)
  try {
    return fs.readFileSync(abs, 'utf8').replace(/\r?\n$/, '')
  } catch (err) {
    issues.push(`${variable}: cannot read ${abs} (${(err as NodeJS.ErrnoException).code ?? 'error'})`)
    return undefined
  }
}

/** The value of a variable or of the file its `_FILE` variant names; both set is an issue. */
export function variableOrFile(
  name: string,
  value: string | undefined,
  file: string | undefined,
  cwd: string,
  issues: string[],
): string | undefined {
  if (value !== undefined && file !== undefined) {
    issues.push(`${name}: set either ${name} or ${name}_FILE, not both`)
    return undefined
  }
  return file === undefined ? value : readSecretFile(`${name}_FILE`, file, cwd, issues)
}

/** MNEMO_DATABASE_URL, or the file MNEMO_DATABASE_URL_FILE names (the URL holds a password). */
export function loadDatabaseUrl(e: Env, cwd: string, issues: string[]): string | undefined {
  const url = variableOrFile('MNEMO_DATABASE_URL', e.MNEMO_DATABASE_URL, e.MNEMO_DATABASE_URL_FILE, cwd, issues)
  if (url !== undefined && !/^postgres(ql)?:\/\//.test(url)) {
    // The URL itself is never repeated: it may hold a password.
    issues.push('MNEMO_DATABASE_URL_FILE: must hold a postgres:// or postgresql:// URL')
    return undefined
  }
  return url
}

/** The admin token, checked like agent tokens (16+ characters, no whitespace). */
export function loadAdminToken(e: Env, cwd: string, issues: string[]): string | undefined {
  const token = variableOrFile('MNEMO_API_TOKEN', e.MNEMO_API_TOKEN, e.MNEMO_API_TOKEN_FILE, cwd, issues)
  if (token === undefined) return undefined
  const problem = tokenProblem(token)
  if (problem) {
    const source = e.MNEMO_API_TOKEN_FILE === undefined ? 'MNEMO_API_TOKEN' : 'MNEMO_API_TOKEN_FILE'
    issues.push(`${source}: the admin token ${problem}`)
  }
  return token
}

/** Agent tokens from the variable (comma-separated) or the file (one per line), checked. */
export function loadAgentTokens(
  e: Env,
  adminToken: string | undefined,
  cwd: string,
  issues: string[],
): Map<string, string> {
  const tokens = new Map<string, string>()
  const text = variableOrFile('MNEMO_AGENT_TOKENS', e.MNEMO_AGENT_TOKENS, e.MNEMO_AGENT_TOKENS_FILE, cwd, issues)
  if (text !== undefined) {
    const fromFile = e.MNEMO_AGENT_TOKENS_FILE !== undefined
    parseAgentTokens(
      text,
      fromFile ? /\r?\n/ : /,/,
      fromFile ? 'MNEMO_AGENT_TOKENS_FILE' : 'MNEMO_AGENT_TOKENS',
      tokens,
      issues,
    )
  }
  checkDistinctTokens(tokens, adminToken, issues)
  return tokens
}
