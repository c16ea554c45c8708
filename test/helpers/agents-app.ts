/**
 * A test app with an agents folder (and optionally a team folder) beside its workspace, and
 * a request helper that names the agent and the token.
 */
import fs from 'node:fs'
import path from 'node:path'
import { onTestFinished } from 'vitest'
import type { ContainerOverrides } from '../../src/wiring/container.js'
import { buildTestApp, type TestApp } from './build-test-app.js'
import { createTempWorkspace, type TempWorkspace } from './temp-workspace.js'

export type AgentsApp = TestApp & {
  agentsDir: string
  teamDir: string
  /** Writes a file into an agent's folder on disk (not through the API). */
  writeAgentFile(agent: string, rel: string, text: string): void
  writeTeamFile(rel: string, text: string): void
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    opts?: { agent?: string; token?: string; payload?: unknown; headers?: Record<string, string> },
  ): Promise<{
    statusCode: number
    headers: Record<string, unknown>
    json: <T = Record<string, unknown>>() => T
    body: string
  }>
}

type AgentsAppOptions = {
  team?: boolean
  env?: Record<string, string>
  overrides?: ContainerOverrides
  start?: boolean
  logs?: string[]
  /** Reuse the folders of an earlier app (a restart). */
  ws?: TempWorkspace
}

export async function buildAgentsApp(opts: AgentsAppOptions = {}): Promise<AgentsApp> {
  const ws = opts.ws ?? createTempWorkspace()
  const agentsDir = path.join(ws.base, 'agents')
  const teamDir = path.join(ws.base, 'team')
  const env: Record<string, string> = { MNEMO_AGENTS_DIR: agentsDir, ...opts.env }
  if (opts.team) env.MNEMO_TEAM_DIR = teamDir
  const write = (root: string, rel: string, text: string) => {
    const abs = path.join(root, ...rel.split('/'))
    fs.mkdirSync(path.dirname(abs), { recursive: true })
    fs.writeFileSync(abs, text)
  }
  const t = await buildTestApp({
    ws,
    env,
    sync: false,
    ...(opts.overrides && { overrides: opts.overrides }),
    ...(opts.start !== undefined && { start: opts.start }),
    ...(opts.logs && { logs: opts.logs }),
  })
  return {
    ...t,
    agentsDir,
    teamDir,
    writeAgentFile: (agent, rel, text) => write(path.join(agentsDir, agent), rel, text),
    writeTeamFile: (rel, text) => write(teamDir, rel, text),
    async call(method, url, o = {}) {
      const headers: Record<string, string> = { ...o.headers }
      if (o.agent !== undefined) headers['x-mnemo-agent'] = o.agent
      if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`
      const res = await t.app.inject({
        method,
        url,
        headers,
        ...(o.payload === undefined ? {} : { payload: o.payload as string | object }),
      })
      return { statusCode: res.statusCode, headers: res.headers, json: <T>() => res.json<T>(), body: res.body }
    },
  }
}

/** buildAgentsApp inside a test: the app closes itself when the test finishes (see useTestApp). */
export async function useAgentsApp(opts: AgentsAppOptions = {}): Promise<AgentsApp> {
  const t = await buildAgentsApp(opts)
  onTestFinished(() => t.close())
  return t
}
