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
// V8's compiled code of our modules and dependencies is kept on disk (in the OS temp folder,
// or NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off) and reused by the next
// start: about 15 % less start-up CPU (BENCHMARKS.md, "Cold start"). Where that folder cannot
// be written, Node carries on without it. The search threads use it too, through the
// variable they inherit (each loads the threads' script). Typed here until @types/node knows
// the call.
const nodeModule = process.getBuiltinModule('node:module') as {
  enableCompileCache?: () => { directory?: string }
}
const cache = nodeModule.enableCompileCache?.()
if (cache?.directory) process.env.NODE_COMPILE_CACHE = cache.directory
await import('./serve.js')
