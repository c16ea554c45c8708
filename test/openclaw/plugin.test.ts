/**
 * The OpenClaw plugin memory-mnemo (integrations/openclaw) in the real OpenClaw (the pinned
 * package, installed in test/openclaw/host by CI's OpenClaw step), against a running
 * mnemo and a scripted model on loopback (fake-model.ts): installed with `plugins install
 * --link`, it holds the memory slot and inspects healthy; an agent turn is offered mnemo's
 * memory_search and no builtin one, and answers with a note from mnemo; what one sender
 * asks to remember the next sender does not find; a pre-compaction flush lands in mnemo; a
 * stopped mnemo gives the model a clear tool error and the turn still answers.
 * `npm run test:openclaw`.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Mnemo } from '../../src/client/index.js'
import { startService, type ServiceProcess } from '../helpers/service-process.js'
import { createTempWorkspace } from '../helpers/temp-workspace.js'
import { FLUSHED_NOTE, startFakeModel, textOf, type ModelRequest } from './fake-model.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const PLUGIN = path.join(ROOT, 'integrations/openclaw')
const OPENCLAW = path.join(import.meta.dirname, 'host/node_modules/.bin/openclaw')
const HARNESS = path.join(import.meta.dirname, 'sender-harness')
const TOKEN = 'openclaw-test-token-0123456789'

type Turn = { payloads?: { text?: string }[] }

describe('memory-mnemo in OpenClaw', () => {
  let service: ServiceProcess
  let model: Awaited<ReturnType<typeof startFakeModel>>
  let home: string
  let url: string
  let mnemo: Mnemo
  /** What the last openclaw command printed on stderr (its log), for a failure's message. */
  let lastLog = ''

  /** Runs the openclaw CLI in the test's own home; resolves with its stdout. */
  const openclaw = (args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [OPENCLAW, ...args],
        {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: home,
            OPENCLAW_HOME: home,
            OPENCLAW_STATE_DIR: path.join(home, '.openclaw'),
            OPENCLAW_CONFIG_PATH: path.join(home, '.openclaw/openclaw.json'),
            OPENCLAW_NO_AUTO_UPDATE: '1',
            OPENCLAW_DISABLE_BONJOUR: '1',
            OPENCLAW_OFFLINE: '1',
          },
          maxBuffer: 32 * 1024 * 1024,
          timeout: 150_000,
        },
        (err, stdout, stderr) => {
          lastLog = stderr
          if (err) reject(new Error(`openclaw ${args[0]}: ${err.message}\n${stderr}`))
          else resolve(stdout)
        },
      )
    })
  const lastJson = <T>(stdout: string): T => JSON.parse(stdout.slice(stdout.indexOf('{'))) as T
  const replyOf = (turn: Turn) => (turn.payloads ?? []).map((p) => p.text ?? '').join('\n')
  /** The tool results the model was shown in the requests from `from` on. */
  const toolResults = (from: number) =>
    model.requests.slice(from).flatMap((r: ModelRequest) => r.messages.filter((m) => m.role === 'tool').map(textOf))

  function writeConfig(extra: Record<string, unknown> = {}, pluginConfig: Record<string, unknown> = {}) {
    const config = {
      agents: { defaults: { model: { primary: 'fake/fake-1' }, workspace: path.join(home, 'workspace') } },
      models: {
        mode: 'merge',
        providers: {
          fake: {
            baseUrl: model.baseUrl,
            apiKey: 'sk-fake',
            api: 'openai-completions',
            timeoutSeconds: 60,
            models: [
              {
                id: 'fake-1',
                name: 'Scripted model',
                reasoning: false,
                input: ['text'],
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                contextWindow: 128000,
                maxTokens: 4096,
              },
            ],
          },
        },
      },
      plugins: {
        entries: {
          // Otherwise it loads beside a memory plugin that holds the slot, with its own memory_search.
          'memory-core': { enabled: false },
          'memory-mnemo': { enabled: true, config: { url, token: TOKEN, ...pluginConfig } },
        },
      },
      ...extra,
    }
    fs.mkdirSync(path.join(home, '.openclaw'), { recursive: true })
    fs.writeFileSync(path.join(home, '.openclaw/openclaw.json'), JSON.stringify(config, null, 2))
  }

  beforeAll(async () => {
    expect(fs.existsSync(OPENCLAW), `${OPENCLAW}: npm ci --prefix test/openclaw/host`).toBe(true)
    const ws = createTempWorkspace()
    ws.write('MEMORY.md', "# Owner\n\n- The owner's favourite drink is jasmine tea.\n")
    service = startService({ MNEMO_WORKSPACE: ws.root, MNEMO_DATA_DIR: ws.dataDir, MNEMO_API_TOKEN: TOKEN }, ws.base)
    url = await service.ready()
    mnemo = new Mnemo({ baseUrl: url, token: TOKEN })
    model = await startFakeModel()
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'mnemo-openclaw-'))
    writeConfig()
    await openclaw(['plugins', 'install', '--link', PLUGIN, '--force', '--accept-capabilities'])
    await openclaw(['plugins', 'install', '--link', HARNESS, '--force', '--accept-capabilities'])
  }, 300_000)
  afterAll(async () => {
    service?.kill('SIGKILL')
    await model?.close()
    if (home) fs.rmSync(home, { recursive: true, force: true })
  })

  it('holds the memory slot and inspects loaded, with its tools', async () => {
    const { plugin, diagnostics } = lastJson<{ plugin: Record<string, unknown>; diagnostics: unknown[] }>(
      await openclaw(['plugins', 'inspect', 'memory-mnemo', '--runtime', '--json']),
    )
    expect(plugin).toMatchObject({ status: 'loaded', kind: 'memory', memorySlotSelected: true, activated: true })
    expect(diagnostics).toEqual([])
    expect(plugin.toolNames).toEqual(
      expect.arrayContaining(['memory_search', 'memory_get', 'memory_write', 'memory_supersede']),
    )
  }, 120_000)

  it('answers from mnemo through its memory_search, with no builtin memory tool offered', async () => {
    const from = model.requests.length
    const turn = lastJson<Turn>(
      await openclaw(['agent', '--local', '--agent', 'main', '--message', 'What is my favourite drink?', '--json']),
    )
    expect(replyOf(turn)).toContain('jasmine tea')
    expect(replyOf(turn)).toMatch(/\bMEMORY\.md#L1-L3\b/)
    const offered = model.requests[from]?.tools ?? []
    const memoryTools = offered.filter((t) => /memory|intent/.test(t.function?.name ?? ''))
    expect(memoryTools.map((t) => t.function?.name).sort()).toEqual([
      'memory_get',
      'memory_search',
      'memory_supersede',
      'memory_write',
    ])
    expect(memoryTools.find((t) => t.function?.name === 'memory_search')?.function?.description).toContain('mnemo')
    // The prompt points the model at mnemo's tools.
    expect(textOf(model.requests[from]?.messages[0])).toContain('Your long-term memory is mnemo')
  }, 180_000)

  it('keeps what one sender asked to remember from the next sender', async () => {
    const saved = lastJson<Turn>(
      await openclaw(['mnemo-test-turn', '--sender', 'alice', '-m', 'Remember: my locker code is 4417']),
    )
    expect(replyOf(saved)).toContain('users/alice/MEMORY.md')
    expect((await mnemo.as({ user: 'alice' }).search({ query: 'locker code' })).results[0]?.snippet).toContain('4417')

    const from = model.requests.length
    const asked = lastJson<Turn>(
      await openclaw(['mnemo-test-turn', '--sender', 'bob', '-m', 'What is my locker code?']),
    )
    expect(toolResults(from).join('\n')).toContain('nothing relevant is remembered')
    expect(replyOf(asked)).not.toContain('4417')
    expect((await mnemo.search({ query: 'locker code 4417' })).results).toEqual([])

    const again = lastJson<Turn>(
      await openclaw(['mnemo-test-turn', '--sender', 'alice', '-m', 'What is my locker code?']),
    )
    expect(replyOf(again)).toContain('4417')
  }, 300_000)

  it('sends the pre-compaction flush to mnemo, only where no other sender could read it', async () => {
    // A transcript this small asks for a flush and a compaction before the next turn.
    const flushSoon = {
      agents: {
        defaults: {
          model: { primary: 'fake/fake-1' },
          workspace: path.join(home, 'workspace'),
          compaction: { maxActiveTranscriptBytes: 2000, memoryFlush: { forceFlushTranscriptBytes: 1000 } },
        },
      },
    }
    const ask = ['agent', '--local', '--agent', 'main', '--message', 'What is my favourite drink?', '--json']
    // Per sender (the default): OpenClaw's flush run names no sender, so the note could be
    // anyone's; it stays in OpenClaw's local day file.
    writeConfig(flushSoon)
    await openclaw(['plugins', 'install', '--link', PLUGIN, '--force', '--accept-capabilities'])
    await openclaw(ask)
    expect(lastLog).toContain('a flush run named no sender; kept in the local day file only')
    expect((await mnemo.search({ query: 'deploy freeze Friday' })).results).toEqual([])
    // One memory for all (users: shared): the flush lands in mnemo's day file, named by the session.
    writeConfig(flushSoon, { users: 'shared' })
    await openclaw(['plugins', 'install', '--link', PLUGIN, '--force', '--accept-capabilities'])
    await openclaw(ask)
    const found = await mnemo.search({ query: 'deploy freeze Friday' })
    expect(found.results[0]?.snippet, lastLog).toContain(FLUSHED_NOTE.slice(2))
    expect(found.results[0]?.path).toMatch(/^memory\/\d{4}-\d{2}-\d{2}\.md$/)
  }, 300_000)

  it('gives the model a clear error when mnemo is down, and the turn still answers', async () => {
    service.kill('SIGKILL')
    await service.exited
    const from = model.requests.length
    const started = Date.now()
    const turn = lastJson<Turn>(
      await openclaw(['agent', '--local', '--agent', 'main', '--message', 'What is my favourite drink?', '--json']),
    )
    expect(toolResults(from).join('\n')).toMatch(/mnemo memory unavailable \(UNREACHABLE/)
    expect(replyOf(turn)).toContain('From memory')
    expect(Date.now() - started).toBeLessThan(120_000)
  }, 180_000)
})
