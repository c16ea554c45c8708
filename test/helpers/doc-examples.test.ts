import { describe, expect, it } from 'vitest'
import { continues, extractExamples, hasShape, setupEnv } from './doc-examples.js'

const fence = '```'

describe('extractExamples', () => {
  it('picks curl and mnemo commands with their continuation lines and stated outputs, nothing else', () => {
    const md = [
      'Text with curl in it.',
      `${fence}sh`,
      'npm ci   # not an example',
      "curl -s localhost:8787/search -H 'content-type: application/json' \\",
      `  -d '{"query":"x"}'`,
      '# → {"results":[],…}',
      '# a comment, not an output',
      'mnemo status   # → mnemo at …: ready',
      'echo "a note" | mnemo flush',
      `curl -s localhost:8787/search -d '{"query": "a",`,
      `  "maxResults": 2}'`,
      fence,
      `${fence}json`,
      'curl -s localhost:8787/health',
      fence,
    ].join('\n')
    expect(extractExamples('X.md', md)).toEqual([
      {
        where: 'X.md:4',
        command: `curl -s localhost:8787/search -H 'content-type: application/json' \\\n  -d '{"query":"x"}'`,
        expected: '{"results":[],…}',
        setup: '',
        skip: undefined,
      },
      { where: 'X.md:8', command: 'mnemo status', expected: 'mnemo at …: ready', setup: '', skip: undefined },
      { where: 'X.md:9', command: 'echo "a note" | mnemo flush', expected: undefined, setup: '', skip: undefined },
      {
        where: 'X.md:10',
        command: `curl -s localhost:8787/search -d '{"query": "a",\n  "maxResults": 2}'`,
        expected: undefined,
        setup: '',
        skip: undefined,
      },
    ])
  })

  it('takes the setup from a start line or an example-env marker, and skips with a reason', () => {
    const md = [
      `${fence}sh`,
      'mnemo search before-the-start',
      'MNEMO_AGENTS_DIR=./agents \\',
      'MNEMO_API_TOKEN=admin-secret-0123456789 scripts/with-node 24 npm start',
      'curl -s localhost:8787/agents',
      fence,
      '',
      '<!-- example-env: MNEMO_TEAM_DIR=./team -->',
      `${fence}bash`,
      'mnemo search team',
      fence,
      '<!-- example-skip: needs a model server -->',
      `${fence}sh`,
      'mnemo index --full',
      fence,
    ].join('\n')
    expect(extractExamples('Y.md', md).map((e) => [e.where, e.setup, e.skip])).toEqual([
      ['Y.md:2', '', undefined],
      ['Y.md:5', 'MNEMO_AGENTS_DIR=./agents MNEMO_API_TOKEN=admin-secret-0123456789', undefined],
      ['Y.md:10', 'MNEMO_TEAM_DIR=./team', undefined],
      ['Y.md:14', '', 'needs a model server'],
    ])
    expect(setupEnv('MNEMO_AGENTS_DIR=./agents MNEMO_API_TOKEN=a=b')).toEqual({
      MNEMO_AGENTS_DIR: './agents',
      MNEMO_API_TOKEN: 'a=b',
    })
    expect(() => setupEnv('MNEMO_AGENTS_DIR')).toThrow('is not NAME=value')
  })

  it('keeps a here-document with its command', () => {
    const md = [`${fence}sh`, "mnemo flush <<'NOTES'", '- one', '- two', 'NOTES', 'mnemo status', fence].join('\n')
    expect(extractExamples('Z.md', md).map((e) => e.command)).toEqual([
      "mnemo flush <<'NOTES'\n- one\n- two\nNOTES",
      'mnemo status',
    ])
  })
})

describe('continues', () => {
  it.each([
    ['curl a \\', true],
    ['curl -d \'{"a":', true],
    ["curl -d $'it\\'s", true],
    ['curl -d "a \\" b', true],
    ["curl -d 'a' # it's a comment", false],
    ["curl -d 'a'", false],
  ])('%s → %s', (text, expected) => {
    expect(continues(text)).toBe(expected)
  })
})

describe('hasShape', () => {
  it('ignores whitespace and lets … stand for any text', () => {
    expect(hasShape('{"results": [], "mode": "keyword"}', '{"results":[],…}')).toBe(true)
    expect(hasShape('{"results":[{"path":"a"}],"mode":"keyword"}', '{"results":[],…}')).toBe(false)
    expect(hasShape('index current: 6 files, 10 chunks', 'index current: … files, ... chunks')).toBe(true)
    expect(hasShape('score 0.5 (x+y)', 'score 0.… (x+y)')).toBe(true)
  })
})
