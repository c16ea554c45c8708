/**
 * Sends OpenClaw's pre-compaction flush to mnemo. The flush turn may only append to the day
 * file of the plan (memory-capability.ts) with OpenClaw's `write` tool; an after_tool_call
 * hook sees that write and posts the same lines to mnemo's /flush, named by the session and
 * with a flushId made from the session and the text, so a retried flush lands once.
 * Per sender, a flush run that names no sender is not sent (it could hold any person's
 * conversation, and would land in the memory every sender shares): it stays in the local
 * file, and a warning says so.
 */
import { createHash } from 'node:crypto'
import { actingFor } from './acting.js'
import type { Settings } from './settings.js'
import { clientFor } from './tools.js'

const DAY_FILE = /(?:^|\/)memory\/\d{4}-\d{2}-\d{2}\.md$/

export type ToolCall = { toolName: string; params: Record<string, unknown>; error?: string }
export type ToolCallContext = {
  agentId?: string
  sessionKey?: string
  sessionId?: string
  requester?: { senderId?: string; senderIsOwner?: boolean }
}
export type Log = { warn(message: string): void; info?(message: string): void }

/** The flush a tool call is, or null: a successful `write` of a day file's lines. */
export function flushOf(event: ToolCall): { content: string } | null {
  if (event.toolName !== 'write' || event.error) return null
  const path = event.params.path ?? event.params.file_path
  const content = event.params.content
  if (typeof path !== 'string' || !DAY_FILE.test(path) || typeof content !== 'string' || !content.trim()) return null
  return { content }
}

export const flushIdOf = (session: string, content: string): string =>
  `openclaw-${createHash('sha256').update(`${session}\n${content}`).digest('hex').slice(0, 40)}`

export async function forwardFlush(settings: Settings, event: ToolCall, ctx: ToolCallContext, log: Log): Promise<void> {
  const flush = flushOf(event)
  if (!flush) return
  const sender = ctx.requester?.senderId
  if (
    settings.users === 'per-sender' &&
    sender === undefined &&
    ctx.requester?.senderIsOwner !== true &&
    ctx.sessionKey?.includes(':internal-')
  ) {
    log.warn('memory-mnemo: a flush run named no sender; kept in the local day file only, not sent to mnemo')
    return
  }
  const acting = actingFor(settings, {
    agentId: ctx.agentId,
    senderId: sender,
    senderIsOwner: ctx.requester?.senderIsOwner,
  })
  const session = ctx.sessionId ?? ctx.sessionKey ?? 'openclaw'
  try {
    await clientFor(settings, acting).flush({
      content: flush.content,
      sessionId: session.slice(0, 128),
      flushId: flushIdOf(session, flush.content),
      origin: 'agent',
    })
  } catch (err) {
    log.warn(
      `memory-mnemo: the flush did not reach mnemo (${err instanceof Error ? err.message : String(err)}); it stays in the local day file`,
    )
  }
}
