/**
 * What a search request costs before its search (issue 35): one keep-alive client alternating
 * between a bare fastify server in another process (a fixed 5 KB JSON answer, the size of a
 * SciFact claim's), the service's `/health`, and a keyword search for a word no chunk holds,
 * on an empty workspace. The bare server is the floor of an HTTP exchange between two
 * processes; the empty search adds the service's request pipeline around a search (routing,
 * hooks, validation, the agent's folder check, logging, metrics, the answer's encoding).
 *
 *   npx tsx bench/request-floor.ts [--runs 3] [--requests 3000]
 *
 * Needs the service built (npm run build). Prints each run's p50s, then their medians.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { createClient } from './http-client.js'
import { startServer } from './server-process.js'
import { median, percentile } from './stats.js'

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, requests: { type: 'string', default: '3000' } },
})
const runs = Number(values.runs)
const requests = Number(values.requests)

/** A bare fastify server in a child process, answering POST /search with a 5 KB body. */
const BARE = `
import Fastify from 'fastify'
const result = { path: 'memory/notes.md', startLine: 1, endLine: 6, snippet: 'x'.repeat(700), score: 0.5 }
const body = { results: Array.from({ length: 6 }, () => result), mode: 'keyword' }
const app = Fastify()
app.post('/search', async () => body)
const url = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(url + '\\n')
`

async function startBare(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', BARE], {
    cwd: path.resolve(import.meta.dirname, '..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()))
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)))
  })
  return { url, stop: () => child.kill() }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-request-floor-'))
const bare = await startBare()
const server = await startServer({
  MNEMO_WORKSPACE: path.join(tmp, 'workspace'),
  MNEMO_DATA_DIR: path.join(tmp, 'data'),
  MNEMO_SHED_EVENT_LOOP_DELAY_MS: '0',
})
try {
  const toBare = createClient(bare.url)
  const toService = createClient(server.baseUrl)
  const kinds = {
    'bare fastify, another process': () => toBare.request('POST', '/search', { query: 'zzqqxx' }),
    '/health': () => toService.request('GET', '/health'),
    'search, no chunk matches': () =>
      toService.request('POST', '/search', { query: 'zzqqxx nonexistentterm', mode: 'keyword' }),
  }
  const p50s = Object.fromEntries(Object.keys(kinds).map((k) => [k, [] as number[]]))
  for (let run = 0; run < runs; run++) {
    const samples = Object.fromEntries(Object.keys(kinds).map((k) => [k, [] as number[]]))
    for (let i = 0; i < requests; i++) {
      for (const [kind, send] of Object.entries(kinds)) {
        const res = await send()
        if (res.status !== 200) throw new Error(`${kind}: ${res.status} ${res.body}`)
        samples[kind]?.push(res.ms)
      }
    }
    for (const [kind, xs] of Object.entries(samples)) p50s[kind]?.push(percentile(xs, 50))
  }
  for (const [kind, xs] of Object.entries(p50s)) {
    process.stdout.write(`${kind}: p50 ${median(xs).toFixed(2)} ms (runs ${xs.map((x) => x.toFixed(2)).join(', ')})\n`)
  }
} finally {
  bare.stop()
  await server.stop()
  fs.rmSync(tmp, { recursive: true, force: true })
}
