/**
 * Runs the service entry (entries.ts) as a child process, as production runs it, for tests
 * that need signals: SIGTERM shutdown, SIGKILL crashes, restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { entryOf, nodeArgs } from './entries.js'
import { waitFor } from './wait-for.js'

export type ServiceProcess = ReturnType<typeof startService>

/** `as`: run as this user and group id (the test runs as root and needs an unprivileged service). */
export function startService(env: Record<string, string>, cwd: string, as?: { uid: number; gid: number }) {
  const child: ChildProcess = spawn(process.execPath, nodeArgs(entryOf('main')), {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      MNEMO_PORT: '0',
      MNEMO_LOG_LEVEL: 'info',
      // The process shares two cores with the test runner and other test projects, whose
      // load is not the service's: shedding by delay is tested on its own (admission tests).
      MNEMO_SHED_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    exited,
    out: () => stdout,
    err: () => stderr,
    /** The base URL once the server listens. */
    url: () => waitFor(() => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1], 30_000),
    /** The base URL once /ready answers 200. */
    async ready(): Promise<string> {
      const url = await this.url()
      await waitFor(async () => ((await fetch(`${url}/ready`)).status === 200 ? true : undefined), 30_000)
      return url
    },
    kill(signal: NodeJS.Signals): void {
      if (child.exitCode === null) child.kill(signal)
    },
  }
}
