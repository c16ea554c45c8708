#!/usr/bin/env node
/**
 * The `mnemo` command: `mnemo` or `mnemo serve` runs the service (serve.ts); `mnemo mcp`
 * speaks MCP over stdio to a running service (mcp-stdio.ts); `search`, `get`, `index` and
 * `flush` make one call to a running service (cli-client.ts); `export` and `import` move
 * memory as tar archives (cli-transfer.ts).
 */
import { nodeVersionProblem } from './node-version.js'

const CLIENT_COMMANDS = new Set(['search', 'get', 'index', 'flush'])

const USAGE = `usage: mnemo [serve]   run the memory service (settings: MNEMO_* variables, see .env.example)
       mnemo mcp       MCP over stdio, calling a running mnemo (MNEMO_URL, MNEMO_TOKEN, MNEMO_AGENT)
`

/** The whole usage text, client commands included. */
async function usage(): Promise<string> {
  const { CLIENT_USAGE } = await import('./cli-client.js')
  const { TRANSFER_USAGE } = await import('./cli-transfer.js')
  return USAGE + CLIENT_USAGE + TRANSFER_USAGE
}

const problem = nodeVersionProblem(process.version)
if (problem) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}

const command = process.argv[2] ?? 'serve'
// The Node.js version is checked above, as main.ts would.
if (command === 'serve') await import('./serve.js')
else if (command === 'mcp') await import('./mcp-stdio.js')
else if (command === 'export' || command === 'import') {
  const { transferMain } = await import('./cli-transfer.js')
  await transferMain(command, process.argv.slice(3))
} else if (CLIENT_COMMANDS.has(command)) {
  const { clientMain } = await import('./cli-client.js')
  await clientMain(command, process.argv.slice(3))
} else {
  process.stderr.write(
    command === '--help' || command === '-h' ? await usage() : `mnemo: unknown command "${command}"\n${await usage()}`,
  )
  process.exitCode = command === '--help' || command === '-h' ? 0 : 2
}
