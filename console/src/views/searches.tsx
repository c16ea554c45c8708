/**
 * What agents searched for (GET /searches): the queries that found nothing, those answered
 * only below minScore, latency over time, and every search with its feedback. The admin
 * reads every agent's, or the one picked in the header; an agent token its own.
 */
import { useState } from 'preact/hooks'
import { describeError, type Schemas } from '../api.js'
import type { Ctx } from '../context.js'
import { ms, score, when } from '../format.js'
import { usePoll } from '../use-poll.js'
import { LatencyChart } from './latency-chart.js'

const PERIODS: [string, number][] = [
  ['last hour', 3600e3],
  ['last 24 hours', 86400e3],
  ['last 7 days', 7 * 86400e3],
  ['last 30 days', 30 * 86400e3],
]
const EVERY_MS = 5000

export function Searches({ ctx }: { ctx: Ctx }) {
  const [period, setPeriod] = useState(1)
  const [onlyEmpty, setOnlyEmpty] = useState(false)
  const [allAgents, setAllAgents] = useState(true)
  const [since, setSince] = useState(0)
  const [searches, setSearches] = useState<Schemas['LoggedSearch'][] | null>(null)
  const [error, setError] = useState<string | null>(null)
  const admin = ctx.session.role === 'admin'
  usePoll(
    async () => {
      const start = Date.now() - (PERIODS[period]?.[1] ?? 0)
      // The admin reads across agents and filters; anyone else reads as itself.
      const client = admin ? ctx.clientAs({ agent: null, user: null }) : ctx.client
      const query = {
        since: new Date(start).toISOString(),
        limit: 1000,
        ...(onlyEmpty && { noResults: true }),
        ...(admin && !allAgents && { agent: ctx.acting.agent ?? 'main' }),
        ...(admin && !allAgents && ctx.acting.user && { user: ctx.acting.user }),
      }
      try {
        setSearches(await client.searches(query))
        setSince(start)
        setError(null)
      } catch (err) {
        setError(describeError(err))
      }
    },
    EVERY_MS,
    [ctx, period, onlyEmpty, allAgents],
  )
  const nothing = (searches ?? []).filter((s) => s.results === 0 && !s.abstained)
  const below = (searches ?? []).filter((s) => s.abstained)
  return (
    <section aria-labelledby="searches-title">
      <h1 id="searches-title">What agents searched for</h1>
      <div class="filters">
        <label>
          Period{' '}
          <select value={String(period)} onChange={(e) => setPeriod(Number(e.currentTarget.value))}>
            {PERIODS.map(([label], i) => (
              <option value={String(i)}>{label}</option>
            ))}
          </select>
        </label>
        {admin && (
          <label class="check">
            <input type="checkbox" checked={allAgents} onChange={(e) => setAllAgents(e.currentTarget.checked)} /> Every
            agent (else the agent and user picked above)
          </label>
        )}
        <label class="check">
          <input type="checkbox" checked={onlyEmpty} onChange={(e) => setOnlyEmpty(e.currentTarget.checked)} /> Only
          searches that returned nothing
        </label>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {searches && (
        <>
          <LatencyChart searches={searches} since={since} />
          <div class="columns">
            <QueryList title="Found nothing" searches={nothing} />
            <QueryList title="Answered only below minScore" searches={below} />
          </div>
          <SearchTable searches={searches} />
        </>
      )}
    </section>
  )
}

function QueryList({ title, searches }: { title: string; searches: Schemas['LoggedSearch'][] }) {
  const id = `list-${title.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <section class="card" aria-labelledby={id}>
      <h2 id={id}>
        {title} <span class="count">{searches.length}</span>
      </h2>
      {searches.length === 0 ? (
        <p class="hint">None.</p>
      ) : (
        <ul>
          {searches.slice(0, 50).map((s) => (
            <li>
              <q>{s.query}</q>{' '}
              <span class="detail">
                {s.agent}
                {s.user && ` / ${s.user}`} · {when(s.time)}
                {s.abstained && ` · best ${score(s.bestScore)}`}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

function SearchTable({ searches }: { searches: Schemas['LoggedSearch'][] }) {
  return (
    <div class="table-wrap">
      <table>
        <caption>Every search, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Agent</th>
            <th scope="col">Query</th>
            <th scope="col">Mode</th>
            <th scope="col">Results</th>
            <th scope="col">Best score</th>
            <th scope="col">Latency</th>
            <th scope="col">Degraded</th>
            <th scope="col">Feedback</th>
          </tr>
        </thead>
        <tbody>
          {searches.map((s) => (
            <tr key={s.requestId}>
              <td>{when(s.time)}</td>
              <td>
                {s.agent}
                {s.user && ` / ${s.user}`}
              </td>
              <td>{s.query}</td>
              <td>{s.mode}</td>
              <td>{s.abstained ? '0 (abstained)' : s.results}</td>
              <td>{score(s.bestScore)}</td>
              <td>{ms(s.latencyMs)}</td>
              <td>{s.degraded.join(', ') || '—'}</td>
              <td>
                {s.feedback ? (
                  <span class={s.feedback.useful ? 'good' : 'bad'}>
                    {s.feedback.useful ? 'useful' : 'not useful'}
                    {s.feedback.note && ` — ${s.feedback.note}`}
                  </span>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
