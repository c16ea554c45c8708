/**
 * Process entry of the service: checks the Node.js version before anything loads a native
 * module (node-version.ts), then runs the service (serve.ts), loaded only after the check.
 */
import { nodeVersionProblem } from './node-version.js'

const problem = nodeVersionProblem(process.version)
if (problem) {
  process.stderr.write(`${problem}\n`)
  process.exit(1)
}
await import('./serve.js')
