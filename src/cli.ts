#!/usr/bin/env node
/**
 * The `mnemo` command: `mnemo` or `mnemo serve` runs the service (main.ts); `mnemo mcp`
 * speaks MCP over stdio to a running service (mcp-stdio.ts).
 */
const USAGE = `usage: mnemo [serve]   run the memory service (settings: MNEMO_* variables, see .env.example)
       mnemo mcp       MCP over stdio, calling a running mnemo (MNEMO_URL, MNEMO_TOKEN, MNEMO_AGENT)
`

const command = process.argv[2] ?? 'serve'
if (command === 'serve') await import('./main.js')
else if (command === 'mcp') await import('./mcp-stdio.js')
else {
  process.stderr.write(
    command === '--help' || command === '-h' ? USAGE : `mnemo: unknown command "${command}"\n${USAGE}`,
  )
  process.exitCode = command === '--help' || command === '-h' ? 0 : 2
}
