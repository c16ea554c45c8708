#!/usr/bin/env node
/**
 * The `mnemo` command: `mnemo` or `mnemo serve` runs the service (serve.ts); `mnemo mcp`
 * speaks MCP over stdio to a running service (mcp-stdio.ts); `search`, `get`, `index`,
 * `flush`, `supersede`, `forget` and `status` make calls to a running service (cli-client.ts); `export` and
 * `import` move memory as tar archives (cli-transfer.ts). `--help` prints the usage on
 * stdout, `--version` the package's version; anything else unknown is a usage error
 * (exit 2, the usage on stderr), never an attempt to reach the service.
 */
import fs from 'node:fs'
import { nodeVersionProblem } from './node-version.js'

const CLIENT_COMMANDS = new Set(['search', 'get', 'index', 'flush', 'supersede', 'forget', 'status'])
const HELP = new Set(['--help', '-h', 'help'])
const VERSION = new Set(['--version', '-V', 'version'])

const USAGE = `usage: mnemo [serve]   run the memory service (settings: MNEMO_* variables, see .env.example)
       mnemo mcp       MCP over stdio, calling a running mnemo (MNEMO_URL, MNEMO_API_TOKEN, MNEMO_AGENT)
       mnemo --help | --version
`

/** The whole usage text, client commands included. */
async function usage(): Promise<string> {
  const { CLIENT_USAGE } = await import('./cli-client.js')
  const { TRANSFER_USAGE } = await import('./cli-transfer.js')
  return USAGE + CLIENT_USAGE + TRANSFER_USAGE
}

/** The version in package.json, one folder up from both src/cli.ts and dist/cli.js. */
function version(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

async function usageError(message: string): Promise<void> {
  process.stderr.write(`mnemo: ${message}\n${await usage()}`)
  process.exitCode = 2
}

const problem = nodeVersionProblem(process.version)
if (problem) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}

const [command = 'serve', ...rest] = process.argv.slice(2)
if (HELP.has(command)) process.stdout.write(await usage())
else if (VERSION.has(command)) process.stdout.write(`mnemo ${version()}\n`)
else if ((command === 'serve' || command === 'mcp') && rest.length > 0) {
  await usageError(`mnemo ${command} takes no arguments (settings are MNEMO_* variables), not "${rest.join(' ')}"`)
}
// The Node.js version is checked above, as main.ts would.
else if (command === 'serve') await import('./serve.js')
else if (command === 'mcp') await import('./mcp-stdio.js')
else if (command === 'export' || command === 'import') {
  const { transferMain } = await import('./cli-transfer.js')
  await transferMain(command, rest, await usage())
} else if (CLIENT_COMMANDS.has(command)) {
  const { clientMain } = await import('./cli-client.js')
  await clientMain(command, rest, await usage())
} else await usageError(`unknown ${command.startsWith('-') ? 'option' : 'command'} "${command}"`)
