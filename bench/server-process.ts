/** Starts the built service (dist/main.js) as a child process, as production runs it. */
import { spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'

const MAIN = path.resolve(import.meta.dirname, '../dist/main.js')

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

export type ServerProcess = Awaited<ReturnType<typeof startServer>>

/**
 * `pollMs`: how often /health is asked while the process starts (start.ts times start-up with
 * a shorter one). `logFd`: where its log goes (a file the caller opened; default nowhere).
 * `main`: the build to start (A/B benchmarks start other checkouts' builds; default this one's).
 */
export async function startServer(
  env: Record<string, string>,
  opts: { pollMs?: number; logFd?: number; main?: string } = {},
) {
  const port = await freePort()
  // As npm start and the image run it: small young generations (BENCHMARKS.md, issue 19).
  const child = spawn(process.execPath, ['--max-semi-space-size=4', opts.main ?? MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      // As the image and npm start run it (Dockerfile): big buffers are returned to the system.
      MALLOC_MMAP_THRESHOLD_: '131072',
      MNEMO_LOG_LEVEL: 'warn',
      MNEMO_INDEX_ON_START: 'false',
      ...env,
      MNEMO_PORT: String(port),
    },
    stdio: ['ignore', opts.logFd ?? 'ignore', 'inherit'],
  })
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`)
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('server did not start')
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 50))
  }
  return {
    baseUrl,
    pid: child.pid,
    alive: (): boolean => child.exitCode === null && child.signalCode === null,
    async stop(): Promise<void> {
      if (child.exitCode !== null) return
      const exited = new Promise((r) => child.on('exit', r))
      child.kill('SIGTERM')
      await exited
    },
  }
}
