/**
 * Every agent the token may see, with its index (files, chunks, users, last sync, open or
 * closed), the team memory, and the acting agent's index status: the engine and its health,
 * embeddings and degraded stages, a sync or rebuild running with its progress. Polled every
 * 2 s while shown.
 */
import { useState } from 'preact/hooks'
import { describeError, type Schemas } from '../api.js'
import type { Ctx } from '../context.js'
import { ms, when } from '../format.js'
import { usePoll } from '../use-poll.js'

const EVERY_MS = 2000

type Row = {
  id: string
  open: boolean | null
  files: number
  chunks: number
  users: number | null
  lastSync: Schemas['AgentInfo']['lastSync']
}

export function Overview({ ctx }: { ctx: Ctx }) {
  const [rows, setRows] = useState<Row[] | null>(null)
  const [status, setStatus] = useState<Schemas['IndexStatus'] | null>(null)
  const [error, setError] = useState<string | null>(null)
  usePoll(
    async () => {
      try {
        const index = await ctx.client.status()
        setStatus(index)
        setRows(ctx.session.role === 'admin' ? await agentRows(ctx) : [ownRow(index)])
        setError(null)
      } catch (err) {
        setError(describeError(err))
      }
    },
    EVERY_MS,
    [ctx],
  )
  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {rows && (
        <div class="table-wrap">
          <table class="agents">
            <caption>Agents and their memory</caption>
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Index</th>
                <th scope="col">Files</th>
                <th scope="col">Chunks</th>
                <th scope="col">Users</th>
                <th scope="col">Last sync</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.id}>
                  <th scope="row">
                    {r.id === 'team' ? 'team memory' : <a href={ctx.link('files', { agent: r.id })}>{r.id}</a>}
                  </th>
                  <td>{r.open === null ? '—' : r.open ? 'open' : 'closed'}</td>
                  <td>{r.files}</td>
                  <td>{r.chunks}</td>
                  <td>{r.users ?? '—'}</td>
                  <td>
                    <LastSync sync={r.lastSync} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {status && <IndexPanel status={status} agent={ctx.acting.agent ?? 'main'} />}
    </section>
  )
}

/** One GET /agents: it counts each agent's users without opening it (GET /users would). */
async function agentRows(ctx: Ctx): Promise<Row[]> {
  const list = await ctx.clientAs({ agent: null, user: null }).agents()
  const rows: Row[] = [...list.agents]
  if (list.team) rows.push({ id: 'team', open: null, users: null, ...list.team })
  return rows
}

function ownRow(index: Schemas['IndexStatus']): Row {
  return {
    id: "this token's agent",
    open: true,
    files: index.files,
    chunks: index.chunks,
    users: null,
    lastSync: index.lastSync ? { ...index.lastSync } : null,
  }
}

function LastSync({ sync }: { sync: Row['lastSync'] }) {
  if (!sync) return <span>none yet</span>
  return (
    <span class={sync.ok ? 'good' : 'bad'}>
      {sync.ok ? 'ok' : 'failed'} · {when(sync.at)} · {sync.full ? 'rebuild' : sync.reason} · {ms(sync.durationMs)}
      {sync.error && <span class="detail"> — {sync.error}</span>}
    </span>
  )
}

function IndexPanel({ status, agent }: { status: Schemas['IndexStatus']; agent: string }) {
  const degraded: string[] = []
  if (!status.engine.ok) degraded.push(`engine: ${status.engine.error ?? 'not answering'}`)
  if (status.embedding.state === 'pending') {
    degraded.push(`vector search: the embedding server has not answered (${status.embedding.error ?? 'pending'})`)
  }
  const p = status.progress
  return (
    <section class="card" aria-labelledby="index-title">
      <h2 id="index-title">Index of {agent}</h2>
      <dl class="facts">
        <dt>Engine</dt>
        <dd class={status.engine.ok ? 'good' : 'bad'}>
          {status.engine.kind} · {status.engine.ok ? 'healthy' : 'unreachable'}
        </dd>
        <dt>Embeddings</dt>
        <dd>
          {status.embedding.provider === 'none'
            ? 'none (keyword search)'
            : `${status.embedding.provider} ${status.embedding.model ?? ''} · ${status.embedding.state}`}
        </dd>
        <dt>Vectors</dt>
        <dd>
          {status.vectorBackend}
          {status.vectorsPending > 0 && ` · ${status.vectorsPending} chunks waiting`}
        </dd>
        <dt>Degraded</dt>
        <dd class={degraded.length ? 'bad' : 'good'}>{degraded.length ? degraded.join('; ') : 'none'}</dd>
        <dt>Sync</dt>
        <dd>
          {status.rebuilding ? 'rebuilding' : status.syncing ? 'syncing' : 'idle'}
          {status.queued && ' · another queued'}
          {status.dirty && ' · changes waiting'} · {status.completedSyncs} done since start
        </dd>
      </dl>
      {p && (
        <div class="progress">
          <label for="sync-progress">
            {p.full ? 'Rebuild' : 'Sync'}: {p.phase}, {p.filesDone}/{p.filesTotal} files
            {p.chunksToEmbed > 0 && `, ${p.chunksEmbedded}/${p.chunksToEmbed} chunks embedded`}
          </label>
          <progress id="sync-progress" max={Math.max(1, p.filesTotal)} value={p.filesDone} />
        </div>
      )}
    </section>
  )
}
