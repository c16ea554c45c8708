/**
 * Node's HTTP reason phrases ('Not Found' for 404), taken from the CommonJS module: an ES
 * import of node:http builds its ES facade, which reads every export, and its WebSocket,
 * CloseEvent and MessageEvent getters load undici, http2 and tls (about 75 ms of start-up on
 * Node 24, BENCHMARKS.md "Cold start"). Fastify itself uses node:http through require.
 */
export const STATUS_CODES: Readonly<Record<number, string | undefined>> =
  process.getBuiltinModule('node:http').STATUS_CODES
