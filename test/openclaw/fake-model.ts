/**
 * A scripted OpenAI-compatible chat model on 127.0.0.1 for OpenClaw turns in tests. OpenClaw
 * streams (`stream: true`) and appends an internal-context user message after the user's and
 * after each tool result, so the script looks at what came after the last assistant message:
 * - a tool result → the final answer, quoting it (`From memory: …`);
 * - a flush turn (only `write` offered) → `write` of a note to the plan's day file, then NO_REPLY;
 * - no memory_search offered (compaction's summary) → a plain summary;
 * - "Remember: X" → memory_write of X to MEMORY.md;
 * - anything else → memory_search for the user's words.
 * Every request is kept (`requests`) for the test to inspect: the tools offered, the messages.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

type Message = { role: string; content?: unknown }
type Tool = { function?: { name?: string; description?: string } }
export type ModelRequest = { messages: Message[]; tools?: Tool[]; stream?: boolean }
type Decision = { text: string } | { tool: string; args: Record<string, unknown> }

export const FLUSHED_NOTE = '- Decided: the deploy freeze starts on Friday.'

export const textOf = (m: Message | undefined): string =>
  typeof m?.content === 'string'
    ? m.content
    : Array.isArray(m?.content)
      ? (m.content as { text?: string }[]).map((p) => p.text ?? '').join('')
      : ''

const INTERNAL = 'BEGIN_OPENCLAW_INTERNAL_CONTEXT'

function decide(req: ModelRequest): Decision {
  const tools = new Set((req.tools ?? []).map((t) => t.function?.name))
  const lastAssistant = req.messages.map((m) => m.role).lastIndexOf('assistant')
  const after = req.messages.slice(lastAssistant + 1)
  const all = req.messages.map(textOf).join('\n')
  const flush = tools.has('write') && !tools.has('memory_search') && /compacted|memory flush/i.test(all)
  const results = after.filter((m) => m.role === 'tool')
  if (results.length > 0)
    return { text: flush ? 'NO_REPLY' : `From memory: ${results.map(textOf).join('\n').slice(0, 600)}` }
  if (flush) {
    const path = /memory\/\d{4}-\d{2}-\d{2}\.md/.exec(all)?.[0] ?? 'memory/flush.md'
    return { tool: 'write', args: { path, content: `${FLUSHED_NOTE}\n` } }
  }
  if (!tools.has('memory_search')) return { text: `Summary of ${req.messages.length} messages.` }
  const user = [...req.messages].reverse().find((m) => m.role === 'user' && !textOf(m).includes(INTERNAL))
  // OpenClaw puts the time before the user's words: "[Sun 2026-11-29 06:44 UTC] …".
  const said = (textOf(user).split('\n')[0] ?? '').replace(/^\[[^\]]*\]\s*/, '').trim()
  const remember = /^Remember:\s*(.+)$/.exec(said)
  if (remember) return { tool: 'memory_write', args: { content: `- ${remember[1]}`, file: 'MEMORY.md' } }
  return { tool: 'memory_search', args: { query: said.replace(/[?.!]+$/, '') } }
}

export async function startFakeModel() {
  const requests: ModelRequest[] = []
  let n = 0
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      if (req.method === 'GET' && req.url?.endsWith('/models')) {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ object: 'list', data: [{ id: 'fake-1', object: 'model' }] }))
      }
      const parsed = JSON.parse(body || '{}') as ModelRequest
      requests.push(parsed)
      const d = decide(parsed)
      const id = `chatcmpl-${++n}`
      const chunk = (delta: unknown, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'fake-1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      if ('text' in d) {
        res.write(chunk({ role: 'assistant', content: d.text }))
        res.write(chunk({}, 'stop'))
      } else {
        const call = { index: 0, id: `call_${n}`, type: 'function', function: { name: d.tool, arguments: '' } }
        res.write(chunk({ role: 'assistant', content: null, tool_calls: [call] }))
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(d.args) } }] }))
        res.write(chunk({}, 'tool_calls'))
      }
      const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 }
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'fake-1', choices: [], usage })}\n\n`,
      )
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
