/**
 * The `curl` and `mnemo` examples of a markdown file, and its TypeScript and Python examples,
 * as test/integration/docs-examples.test.ts runs them. Conventions (kept small; a doc author
 * needs only these):
 *
 * - Examples are the command lines of fenced `sh` / `bash` / `shell` blocks whose command (or
 *   a command of its pipeline, `&&` or `;` list) is `curl`, `mnemo` or `scripts/mnemo`, with
 *   their `\` continuation lines and here-documents. Other lines (`npm start`, `docker …`)
 *   are not run.
 * - `# → <output>` states the output: as a trailing comment of the command's last line, or
 *   on the lines right after it (several `# →` lines are joined). Whitespace does not count
 *   and `…` (or `...`) stands for any text, so `# → {"results":[],…}` is a shape, not a copy.
 * - A block that starts the service with settings, `NAME=value … [scripts/with-node 24] npm
 *   start` (continuation lines allowed), runs the examples after that line against a service
 *   started with those variables (values without spaces; relative paths are inside the
 *   service's fresh folder). `<!-- example-env: NAME=value … -->` on the line before a block
 *   does the same for a block that does not show the start. Otherwise: a service with no
 *   settings, as after the quick start.
 * - `<!-- example-skip: why -->` on the line before a block: its examples are listed as
 *   skipped with the reason (e.g. one that needs an external model).
 * - A fenced `ts` or `python` block is one example: the runner writes it to a file and runs it
 *   (TypeScript with tsx, `@mnemo/client` resolving to the repository's src/client; Python
 *   with clients/python/src on its path: docs-examples.test.ts). Its `// → …` or
 *   `# → …` comments, joined, state the output.
 */

export type DocExample = {
  /** Where it is, `README.md:20`. */
  where: string
  /** The command as written, continuation lines and here-documents included. */
  command: string
  /** The `# →` output, if the doc states one. */
  expected: string | undefined
  /** The `example-env` variables, as written (`''`: none). */
  setup: string
  /** The `example-skip` reason, if any. */
  skip: string | undefined
}

const FENCE_OPEN = /^(\s*)```(sh|bash|shell|ts|python)\s*$/
/** A block that is one program, and the command that runs the file it is written to. */
const PROGRAMS: Record<string, { file: string; run: string }> = {
  ts: { file: 'example.mts', run: 'docs_run_ts example.mts' },
  python: { file: 'example.py', run: 'docs_run_py example.py' },
}
/** A program's stated output: `// → …` (TypeScript) or `# → …` (Python), after the code on a line. */
const PROGRAM_ARROW = /\s*(?:\/\/|#)\s*→\s?(.*)$/
const FENCE_CLOSE = /^\s*```\s*$/
const ENV_MARKER = /^\s*<!--\s*example-env:\s*(.*?)\s*-->\s*$/
const SKIP_MARKER = /^\s*<!--\s*example-skip:\s*(.*?)\s*-->\s*$/
const ARROW = /^\s*#\s*→\s?(.*)$/
const TRAILING_ARROW = /\s#\s*→\s?(.*)$/
const HEREDOC = /<<-?\s*['"]?(\w+)['"]?/
/** A line starting the service with settings; group 1: the `NAME=value` assignments. */
const START = /^((?:\w+=\S*\s+)+)(?:scripts\/with-node \d+ )?npm (?:start|run serve)\s*$/
/** Commands the test runs; `VAR=value` prefixes are looked past. */
const RUN = /^(?:\w+=(?:'[^']*'|"[^"]*"|\S*)\s+)*(curl|mnemo|scripts\/mnemo)(\s|$)/

/** Whether shell text goes on to the next line: a trailing `\`, or a quote left open. */
export function continues(text: string): boolean {
  let quote: "'" | '"' | "$'" | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string
    if (quote === undefined) {
      if (c === '\\') {
        if (i === text.length - 1) return true
        i++
      } else if (c === "'") quote = text[i - 1] === '$' ? "$'" : "'"
      else if (c === '"') quote = '"'
      else if (c === '#' && (i === 0 || /\s/.test(text[i - 1] as string))) {
        const eol = text.indexOf('\n', i)
        if (eol < 0) return false
        i = eol
      }
    } else if (c === '\\' && quote !== "'") i++
    else if (c === quote.at(-1)) quote = undefined
  }
  return quote !== undefined
}

/** Whether a logical command line calls curl or mnemo in any part of it. */
export function isExample(command: string): boolean {
  return command
    .replace(/\\\n/g, ' ')
    .split(/\|\|?|&&|;|\n/)
    .some((part) => RUN.test(part.trim()))
}

/** The examples of one markdown file, in document order. */
export function extractExamples(file: string, markdown: string): DocExample[] {
  const lines = markdown.split('\n')
  const examples: DocExample[] = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i] as string)
    if (!open) continue
    const indent = (open[1] as string).length
    let setup = ''
    let skip: string | undefined
    // Markers sit on the non-blank lines right above the fence.
    for (let j = i - 1; j >= 0 && (lines[j] as string).trim() !== ''; j--) {
      const env = ENV_MARKER.exec(lines[j] as string)
      const skipped = SKIP_MARKER.exec(lines[j] as string)
      if (env) setup = env[1] as string
      else if (skipped) skip = skipped[1] || 'no reason given'
      else break
    }
    const block: { text: string; line: number }[] = []
    for (i++; i < lines.length && !FENCE_CLOSE.test(lines[i] as string); i++) {
      block.push({ text: (lines[i] as string).slice(indent), line: i + 1 })
    }
    const program = PROGRAMS[open[2] as string]
    if (program) examples.push(programExample(file, block, program, setup, skip))
    else examples.push(...blockExamples(file, block, setup, skip))
  }
  return examples
}

/** A `ts` or `python` block as one example: a shell command that writes it to a file and runs it. */
function programExample(
  file: string,
  block: { text: string; line: number }[],
  program: { file: string; run: string },
  setup: string,
  skip: string | undefined,
): DocExample {
  const stated: string[] = []
  for (const { text } of block) {
    const arrow = PROGRAM_ARROW.exec(text)
    if (arrow) stated.push(arrow[1] as string)
  }
  const code = block.map(({ text }) => text).join('\n')
  const command = `cat > ${program.file} <<'MNEMO_DOCS_EXAMPLE'\n${code}\nMNEMO_DOCS_EXAMPLE\n${program.run}`
  const where = `${file}:${block[0]?.line ?? 0}`
  return { where, command, expected: stated.length > 0 ? stated.join(' ') : undefined, setup, skip }
}

function blockExamples(
  file: string,
  block: { text: string; line: number }[],
  setup: string,
  skip: string | undefined,
): DocExample[] {
  const found: DocExample[] = []
  for (let k = 0; k < block.length; k++) {
    const first = block[k] as { text: string; line: number }
    if (first.text.trim() === '' || first.text.trim().startsWith('#')) continue
    const parts = [first.text]
    while (continues(parts.join('\n')) && k + 1 < block.length) parts.push(block[++k]?.text as string)
    const heredoc = HEREDOC.exec(parts.join('\n'))
    if (heredoc) {
      while (k + 1 < block.length && (parts.at(-1) as string).trim() !== heredoc[1])
        parts.push(block[++k]?.text as string)
    }
    let expected: string | undefined
    const last = parts.at(-1) as string
    const trailing = heredoc ? null : TRAILING_ARROW.exec(last)
    if (trailing) {
      expected = trailing[1]
      parts[parts.length - 1] = last.slice(0, trailing.index).trimEnd()
    }
    for (let arrow; k + 1 < block.length && (arrow = ARROW.exec(block[k + 1]?.text as string)); k++) {
      expected = `${expected ?? ''} ${arrow[1] as string}`
    }
    const command = parts.join('\n')
    const start = START.exec(command.replace(/\\\n/g, ' ').trim())
    if (start) setup = (start[1] as string).trim().split(/\s+/).join(' ')
    if (isExample(command)) {
      found.push({ where: `${file}:${first.line}`, command, expected: expected?.trim(), setup, skip })
    }
  }
  return found
}

/** Whether `output` has the shape `expected` states: whitespace ignored, `…` or `...` any text. */
export function hasShape(output: string, expected: string): boolean {
  const squash = (s: string) => s.replace(/\s+/g, '')
  const pattern = squash(expected)
    .split(/…|\.\.\./)
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*')
  return new RegExp(pattern).test(squash(output))
}

/** The variables of an `example-env` marker. */
export function setupEnv(setup: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const pair of setup.split(/\s+/).filter(Boolean)) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new Error(`example-env: "${pair}" is not NAME=value`)
    env[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return env
}
