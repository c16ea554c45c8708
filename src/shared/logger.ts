/**
 * pino logger options: JSON lines, secrets redacted. Pretty printing is left to the reader
 * (`npm run dev` pipes through pino-pretty) so the service never branches on its environment.
 */
import { pino, type DestinationStream, type Logger } from 'pino'

export type { Logger }

/** Paths pino replaces with "[redacted]" wherever they appear in a log line. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'apiKey',
  '*.apiKey',
  '*.*.apiKey',
  'apiToken',
  '*.apiToken',
  '*.*.apiToken',
]

/** JSON lines to stdout, or to `destination` (tests read what was logged). */
export function createLogger(opts: { level: string }, destination?: DestinationStream): Logger {
  const options = { level: opts.level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } }
  return destination ? pino(options, destination) : pino(options)
}
