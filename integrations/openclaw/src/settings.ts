/**
 * The plugin's settings (plugins.entries.memory-mnemo.config), with their defaults: where
 * mnemo is, the token (given, from a file, or from an environment variable), the mnemo agent
 * (default: OpenClaw's agent id), whether each sender has a memory of their own, and how
 * long a call may take. Pure apart from reading the token file.
 */
import fs from 'node:fs'

export type Settings = {
  url: string
  token: string | undefined
  /** The mnemo agent; undefined: OpenClaw's agent id, per call. */
  agent: string | undefined
  users: 'per-sender' | 'shared'
  timeoutMs: number
}

export const DEFAULT_URL = 'http://127.0.0.1:8787'
/** Short: OpenClaw's rule is that memory never holds up a reply. */
export const DEFAULT_TIMEOUT_MS = 5000

export function readSettings(config: unknown, env: Record<string, string | undefined>): Settings {
  const c = (config ?? {}) as Record<string, unknown>
  const str = (k: string) => (typeof c[k] === 'string' && c[k] !== '' ? c[k] : undefined)
  const tokenFile = str('tokenFile')
  const token =
    str('token') ??
    (tokenFile ? fs.readFileSync(tokenFile, 'utf8').split('\n')[0]?.trim() : undefined) ??
    env[str('tokenEnv') ?? 'MNEMO_API_TOKEN']
  return {
    url: str('url') ?? env.MNEMO_URL ?? DEFAULT_URL,
    token: token || undefined,
    agent: str('agent'),
    users: c.users === 'shared' ? 'shared' : 'per-sender',
    timeoutMs: typeof c.timeoutMs === 'number' ? c.timeoutMs : DEFAULT_TIMEOUT_MS,
  }
}
