import { describe, expect, it } from 'vitest'
import { checkJsonRpcBody } from './json-rpc-body.js'

const call = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/list' })
const MAX_BATCH = 3

describe('checkJsonRpcBody', () => {
  it.each([
    ['one request', JSON.stringify(call(1))],
    ['a batch', JSON.stringify([call(1), call(2), { jsonrpc: '2.0', method: 'notifications/initialized' }])],
    ['a batch with the same id as a number and a string', JSON.stringify([call(1), call('1')])],
    [
      'a batch of responses, which carry ids but no method',
      JSON.stringify([
        { id: 1, result: {} },
        { id: 1, result: {} },
      ]),
    ],
    ['something the transport will refuse itself', '{"jsonrpc":"1.0"}'],
    ['a batch of the largest size', JSON.stringify([call(1), call(2), call(3)])],
  ])('passes %s on', (_name, text) => {
    expect(checkJsonRpcBody(text, MAX_BATCH)).toEqual({ kind: 'ok', message: JSON.parse(text) })
  })

  it.each([
    ['text that is not JSON', '{"jsonrpc": ', -32700],
    ['an empty body', '', -32700],
    ['an empty batch', '[]', -32600],
    ['a batch repeating a request id', JSON.stringify([call(7), call(7)]), -32600],
    ['a batch over the largest size', JSON.stringify([call(1), call(2), call(3), call(4)]), -32600],
  ])('answers %s with JSON-RPC error %i', (_name, text, code) => {
    const out = checkJsonRpcBody(text, MAX_BATCH)
    expect(out).toMatchObject({ kind: 'error', error: { jsonrpc: '2.0', id: null, error: { code } } })
  })
})
