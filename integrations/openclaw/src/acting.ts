/**
 * Whom a call to mnemo acts for: the mnemo agent (configured, or OpenClaw's agent id) and,
 * with `users: per-sender`, the person the agent is talking to as a mnemo user, so one
 * person's memory never reaches another. The agent's owner, and runs with no sender (the
 * CLI, cron, heartbeats), use the agent's shared memory.
 */
import { mnemoId } from './ids.js'
import type { Settings } from './settings.js'

export type Acting = { agent: string; user: string | undefined }

export type Requester = {
  agentId?: string | undefined
  senderId?: string | undefined
  senderIsOwner?: boolean | undefined
}

export function actingFor(settings: Settings, who: Requester): Acting {
  const agent = settings.agent ?? mnemoId(who.agentId ?? 'main')
  const perSender = settings.users === 'per-sender' && who.senderId !== undefined && who.senderIsOwner !== true
  return { agent, user: perSender ? mnemoId(who.senderId as string) : undefined }
}

/** A path the model names, inside the user's memory when acting for one (users/<id>/…). */
export function memoryPath(acting: Acting, path: string): string {
  const clean = path.replace(/^\/+/, '')
  if (!acting.user) return clean
  const own = `users/${acting.user}/`
  return clean.startsWith(own) ? clean : `${own}${clean}`
}
