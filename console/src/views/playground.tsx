/**
 * The search playground: every /search option, and for each result why it came back (the
 * keyword, vector and rerank scores, the recency factor, the final score against minScore)
 * with the query's terms marked in its snippet. An empty answer says why: every match scored
 * below minScore (and the best one), filters that may have left matches out, stages that fell
 * back, or nothing matched at all. Agents' feedback can be given here too.
 */
import { useState } from 'preact/hooks'
import { describeError, type Schemas } from '../api.js'
import type { Ctx } from '../context.js'
import { ms, score } from '../format.js'
import { markTerms } from '../marks.js'
import { SearchOptions, requestOf, FILTERS, type OptionValues } from './search-options.js'

type Answer = { request: Schemas['SearchRequestInput']; response: Schemas['SearchResponse'] }

export function Playground({ ctx }: { ctx: Ctx }) {
  const [query, setQuery] = useState('')
  const [options, setOptions] = useState<OptionValues>({})
  const [answer, setAnswer] = useState<Answer | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const run = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const request = requestOf(query, options)
      setAnswer({ request, response: await ctx.client.search(request) })
    } catch (err) {
      setAnswer(null)
      setError(describeError(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Search</h1>
      <form role="search" class="search-form" onSubmit={(e) => void run(e)}>
        <label for="q">Search</label>
        <div class="search-row">
          <input
            id="q"
            type="search"
            required
            value={query}
            placeholder="words, identifiers, 中文…"
            onInput={(e) => setQuery(e.currentTarget.value)}
          />
          <button type="submit" disabled={busy}>
            Search
          </button>
        </div>
        <SearchOptions values={options} onChange={setOptions} />
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {answer && <Results ctx={ctx} answer={answer} />}
    </section>
  )
}

function Results({ ctx, answer }: { ctx: Ctx; answer: Answer }) {
  const { request, response } = answer
  const minScore = response.abstained?.minScore ?? request.minScore
  return (
    <section aria-labelledby="results-title" class="results">
      <h2 id="results-title">
        {response.results.length} result{response.results.length === 1 ? '' : 's'}{' '}
        <span class="detail">
          · {response.mode} · {ms(response.timingsMs.total)}
        </span>
      </h2>
      {response.degraded && (
        <p role="status" class="bad">
          Degraded:{' '}
          {Object.entries(response.degraded)
            .map(([stage, why]) => `${stage} — ${why}`)
            .join('; ')}
        </p>
      )}
      {response.results.length === 0 && <WhyNothing request={request} response={response} />}
      <ol class="hits">
        {response.results.map((hit) => (
          <Hit ctx={ctx} hit={hit} query={request.query} minScore={minScore} />
        ))}
      </ol>
      {response.requestId && <Feedback ctx={ctx} requestId={response.requestId} />}
    </section>
  )
}

function WhyNothing({ request, response }: Answer) {
  const filters = FILTERS.filter(([key]) => request[key] !== undefined).map(([, label]) => label)
  return (
    <div class="card why" role="status">
      {response.abstained ? (
        <p>
          Nothing returned: the best match scored {score(response.abstained.bestScore)}, below minScore{' '}
          {score(response.abstained.minScore)}. mnemo abstained rather than answer with a weak match; lower minScore to
          see it.
        </p>
      ) : (
        <p>Nothing in this memory matched the query.</p>
      )}
      {filters.length > 0 && <p>Filters in effect, which may have left matches out: {filters.join(', ')}.</p>}
      {!request.includeSuperseded && <p>Superseded entries are left out (tick “include superseded” to see them).</p>}
    </div>
  )
}

function Hit({ ctx, hit, query, minScore }: { ctx: Ctx; hit: Schemas['SearchHit']; query: string; minScore?: number }) {
  const where = `${hit.path}#L${hit.startLine}-L${hit.endLine}`
  return (
    <li class="hit card">
      <h3>
        <a href={ctx.link('files', { path: hit.path, lines: `L${hit.startLine}-L${hit.endLine}` })}>{where}</a>
      </h3>
      <pre class="snippet">{markTerms(hit.snippet, query).map((s) => (s.mark ? <mark>{s.text}</mark> : s.text))}</pre>
      <dl class="reasons" aria-label={`Why ${where} was returned`}>
        <dt>Keyword</dt>
        <dd>{score(hit.textScore)}</dd>
        <dt>Vector</dt>
        <dd>{score(hit.vectorScore)}</dd>
        <dt>Rerank</dt>
        <dd>{score(hit.rerankScore)}</dd>
        <dt>Recency</dt>
        <dd>{hit.recency === undefined ? 'no decay' : `× ${score(hit.recency)}`}</dd>
        <dt>Final</dt>
        <dd>
          <strong>{score(hit.score)}</strong>
          {minScore !== undefined ? ` ≥ minScore ${score(minScore)}` : ' ≥ minScore (service default)'}
        </dd>
      </dl>
      <p class="detail">
        {hit.space} · {hit.source} · {hit.status}
        {hit.origin && ` · origin ${hit.origin}`}
        {hit.observed && ` · observed ${hit.observed}`}
        {hit.key && ` · key ${hit.key}`}
      </p>
    </li>
  )
}

function Feedback({ ctx, requestId }: { ctx: Ctx; requestId: string }) {
  const [sent, setSent] = useState<string | null>(null)
  const send = async (useful: boolean) => {
    try {
      await ctx.client.feedback({ requestId, useful })
      setSent(useful ? 'Marked as useful.' : 'Marked as not useful.')
    } catch (err) {
      setSent(describeError(err))
    }
  }
  return (
    <p class="feedback">
      Did this help?{' '}
      <button type="button" class="small" onClick={() => void send(true)}>
        Yes
      </button>{' '}
      <button type="button" class="small" onClick={() => void send(false)}>
        No
      </button>{' '}
      <span role="status">{sent}</span> <span class="detail">search {requestId}</span>
    </p>
  )
}
