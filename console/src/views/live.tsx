/**
 * Live changes: the acting agent's event stream (GET /events: its own memory, its user's and
 * the team's), newest first. The admin picks the agent to follow in the header. A dropped
 * stream reconnects after 2 s with Last-Event-ID, so no event in between is missed.
 */
import { useEffect, useState } from 'preact/hooks'
import { describeError, type Schemas } from '../api.js'
import type { Ctx } from '../context.js'

/** Events kept on the page, newest first. */
const KEEP = 200
const RETRY_MS = 2000

export function Live({ ctx }: { ctx: Ctx }) {
  const [events, setEvents] = useState<Schemas['ChangeEvent'][]>([])
  const [state, setState] = useState('connecting…')
  useEffect(() => {
    const abort = new AbortController()
    let lastId: string | undefined
    const follow = async () => {
      while (!abort.signal.aborted) {
        try {
          for await (const e of ctx.client.events({ signal: abort.signal, ...(lastId && { lastEventId: lastId }) })) {
            if (e.id) lastId = e.id
            if (e.event === 'ready') setState('listening')
            else if (e.event === 'overflow') setState('fell behind; reconnecting…')
            else if (e.event !== 'reset') setEvents((list) => [e.data, ...list].slice(0, KEEP))
          }
          if (!abort.signal.aborted) setState('the stream ended; reconnecting…')
        } catch (err) {
          if (abort.signal.aborted) return
          setState(`disconnected (${describeError(err)}); reconnecting…`)
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS))
      }
    }
    setEvents([])
    void follow()
    return () => abort.abort()
  }, [ctx])
  return (
    <section aria-labelledby="live-title">
      <h1 id="live-title">Live changes</h1>
      <p role="status">
        {ctx.acting.agent ?? (ctx.session.role === 'admin' ? 'main' : "this token's agent")}
        {ctx.acting.user ? ` / ${ctx.acting.user}` : ''}: {state}
      </p>
      {events.length === 0 && <p class="hint">Changes to this memory appear here as they happen.</p>}
      <ol class="events" aria-live="polite">
        {events.map((e) => (
          <li key={e.id} class="card">
            <time dateTime={e.time}>{new Date(e.time).toLocaleTimeString()}</time> <strong>{e.type}</strong>{' '}
            {e.path && <a href={ctx.link('files', { path: e.path })}>{e.path}</a>}
            <span class="detail">
              {' '}
              · {e.space}
              {e.agent && ` · ${e.agent}`}
              {e.user && ` / ${e.user}`}
              {e.chunks !== undefined && ` · ${e.chunks} chunks`}
              {e.startLine !== undefined && ` · lines ${e.startLine}–${e.endLine}`}
              {e.error && ` · ${e.error}`}
            </span>
          </li>
        ))}
      </ol>
    </section>
  )
}
