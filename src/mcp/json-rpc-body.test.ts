import { describe, expect, it } from 'vitest'
import { checkJsonRpcBody } from './json-rpc-body.js'

const call = (id: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/list' })

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
  ])('passes %s on', (_name, text) => {
    expect(checkJsonRpcBody(text)).toEqual({ kind: 'ok', message: JSON.parse(text) })
  })

  it.each([
    ['text that is not JSON', '{"jsonrpc": ', -32700],
    ['an empty body', '', -32700],
    ['an empty batch', '[]', -32600],
    ['a batch repeating a request id', JSON.stringify([call(7), call(7)]), -32600],
  ])('answers %s with JSON-RPC error %i', (_name, text, code) => {
    const out = checkJsonRpcBody(text)
    expect(out).toMatchObject({ kind: 'error', error: { jsonrpc: '2.0', id: null, error: { code } } })
  })
})
