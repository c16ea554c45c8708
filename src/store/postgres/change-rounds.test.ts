import { describe, expect, it } from 'vitest'
import type { FileRecord } from '../../domain/chunks.js'
import type { FileChanges } from '../port.js'
import { changeRounds } from './change-rounds.js'

const record = (path: string, readSeq: number) =>
  ({
    path,
    readSeq,
    source: 'memory',
    sha256: '',
    sizeBytes: 0,
    mtimeMs: 0,
    lineCount: 0,
    chunkCount: 0,
    indexedAtMs: 0,
  }) as FileRecord
const rows = (path: string, readSeq: number) => ({ record: record(path, readSeq), chunks: [] })

/** Each round as `r:`, `t:` and `-` followed by path@readSeq, in the order applied. */
const shape = (changes: FileChanges) =>
  changeRounds(changes).map((r) => [
    ...r.replace.map((f) => `r:${f.record.path}@${f.record.readSeq}`),
    ...r.touch.map((f) => `t:${f.path}@${f.readSeq}`),
    ...r.remove.map((f) => `-${f.path}@${f.readSeq}`),
  ])

describe('changeRounds', () => {
  it.each<[string, FileChanges, string[][]]>([
    ['nothing', {}, []],
    [
      'distinct paths: one round, in replace, touch, remove order',
      { replace: [rows('a', 1), rows('b', 2)], touch: [record('c', 3)], remove: [{ path: 'd', readSeq: 4 }] },
      [['r:a@1', 'r:b@2', 't:c@3', '-d@4']],
    ],
    [
      'a file replaced twice: the second write in a round of its own, after the first',
      { replace: [rows('a', 1), rows('b', 2), rows('a', 3), rows('c', 4)] },
      [
        ['r:a@1', 'r:b@2'],
        ['r:a@3', 'r:c@4'],
      ],
    ],
    [
      'a file replaced, then removed',
      {
        replace: [rows('a', 5)],
        remove: [
          { path: 'b', readSeq: 1 },
          { path: 'a', readSeq: 7 },
        ],
      },
      [['r:a@5', '-b@1'], ['-a@7']],
    ],
    [
      'a touched file also replaced, and a path after it carried into its round',
      { replace: [rows('a', 1)], touch: [record('a', 2), record('b', 3)], remove: [{ path: 'b', readSeq: 4 }] },
      [['r:a@1'], ['t:a@2', 't:b@3'], ['-b@4']],
    ],
  ])('%s', (_name, changes, expected) => {
    expect(shape(changes)).toEqual(expected)
  })
})
