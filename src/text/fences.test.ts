import { describe, expect, it } from 'vitest'
import { FENCE, fenceAfter } from './fences.js'

const after = (fence: string | null, line: string) => fenceAfter(fence, line, FENCE.exec(line)?.[1])

describe('fenceAfter', () => {
  it.each([
    ['text outside a fence', null, 'plain text', null],
    ['a fence opens', null, '```sh', '```'],
    ['a tilde fence opens, indented three spaces', null, '   ~~~~', '~~~~'],
    ['four spaces are no fence', null, '    ```', null],
    ['closed by its marker', '```', '```', null],
    ['closed by a longer one', '```', '`````  ', null],
    ['not by a shorter one', '````', '```', '````'],
    ['not by the other character', '```', '~~~', '```'],
    ['not by a marker with text after it', '```', '```js', '```'],
    ['text inside stays inside', '```', '## 09:00:00', '```'],
  ])('%s', (_, fence, line, expected) => {
    expect(after(fence, line)).toBe(expected)
  })
})
