/** @mnemo/client: see mnemo.ts. */
export { Mnemo, type MnemoOptions, type StreamEvent } from './mnemo.js'
export { MnemoError, type MnemoErrorCode } from './errors.js'
export { parseFrames, type SseFrame } from './sse.js'
export type * from './types.js'
