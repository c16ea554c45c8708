/**
 * What /mcp does with a request body before the MCP transport sees it (pure). JSON-RPC has
 * its own answers for bodies that are not valid JSON-RPC, so the body is taken as text and
 * judged here and by the transport, never by the REST validation: not JSON → parse error
 * (-32700); an empty batch, a batch of more than MNEMO_MCP_MAX_BATCH messages (one request
 * must not queue unbounded work), or a batch that repeats a request id (whose answers could
 * not be told apart) → invalid request (-32600).
 */

export type JsonRpcError = { jsonrpc: '2.0'; error: { code: number; message: string }; id: null }

const error = (code: number, message: string): JsonRpcError => ({ jsonrpc: '2.0', error: { code, message }, id: null })

export type BodyCheck = { kind: 'ok'; message: unknown } | { kind: 'error'; error: JsonRpcError }

/** Parses and checks a /mcp body sent as JSON; a batch holds at most `maxBatch` messages. */
export function checkJsonRpcBody(text: string, maxBatch: number): BodyCheck {
  let message: unknown
  try {
    message = JSON.parse(text)
  } catch {
    return { kind: 'error', error: error(-32700, 'Parse error: the body is not JSON') }
  }
  if (Array.isArray(message)) {
    if (message.length === 0) return { kind: 'error', error: error(-32600, 'Invalid Request: an empty batch') }
    if (message.length > maxBatch) {
      return {
        kind: 'error',
        error: error(
          -32600,
          `Invalid Request: a batch of ${message.length} messages; at most ${maxBatch} (MNEMO_MCP_MAX_BATCH)`,
        ),
      }
    }
    const ids = message
      .map((m) => (m as { id?: unknown; method?: unknown } | null) ?? {})
      .filter((m) => m.method !== undefined && m.id !== undefined)
      .map((m) => JSON.stringify(m.id))
    if (new Set(ids).size < ids.length) {
      return { kind: 'error', error: error(-32600, 'Invalid Request: two requests of a batch have the same id') }
    }
  }
  return { kind: 'ok', message }
}
