/**
 * Variants of one PostgreSQL statement side by side (issue 35): each file holds a variant's
 * text, prepared once and executed with the same parameters (each gets as many as its text
 * names), variants alternating, so load on a shared machine falls on all alike. Prints each
 * variant's median round trip over the last `--runs` − 10 executions, and whether its rows'
 * `id`s match the first variant's.
 *
 *   scripts/with-node 24 npx tsx bench/pg-statements.ts --url postgres://… --params '["agent:main", …]' \
 *     before.sql after.sql
 *
 * The texts come from the server's log (`log_min_duration_statement = 0` logs each statement
 * with its parameters), edited by hand into the variants to compare.
 */
import fs from 'node:fs'
import { parseArgs } from 'node:util'
// eslint-disable-next-line no-restricted-imports -- tooling outside src/ that runs statements as given
import pg from 'pg'
import { median } from './stats.js'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string', default: process.env.MNEMO_TEST_DATABASE_URL ?? '' },
    params: { type: 'string', default: '[]' },
    runs: { type: 'string', default: '60' },
  },
})
if (!values.url) throw new Error('--url (or MNEMO_TEST_DATABASE_URL) names the PostgreSQL server')
const params = JSON.parse(values.params) as unknown[]
const runs = Number(values.runs)
const variants = positionals.map((file) => {
  const text = fs.readFileSync(file, 'utf8')
  const count = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])))
  return { file, text, values: params.slice(0, count), ms: [] as number[], ids: '' }
})
const client = new pg.Client({ connectionString: values.url })
await client.connect()
// As the service's statements run: one backend, no parallel workers for a search.
await client.query('SET max_parallel_workers_per_gather = 0')
for (let run = 0; run < runs; run++) {
  for (const [i, v] of variants.entries()) {
    const started = performance.now()
    const { rows } = await client.query<{ id: unknown }>({ name: `variant-${i}`, text: v.text, values: v.values })
    v.ms.push(performance.now() - started)
    if (run === 0) v.ids = JSON.stringify(rows.map((r) => r.id))
  }
}
await client.end()
const first = variants[0]
for (const v of variants) {
  const same = v.ids === first?.ids ? 'same ids' : 'other ids'
  process.stdout.write(`${v.file}: ${median(v.ms.slice(10)).toFixed(3)} ms, ${same} as ${first?.file}\n`)
}
