/**
 * The order in which the test PGlite runs its socket clients' messages. PGlite is one session,
 * and pglite-socket's own queue (0.2.17) takes one protocol message at a time from whichever
 * connection sent it, keeping only explicit transactions together. The `pg` driver sends a
 * parameterised query as Parse, Bind, Describe, Execute, Sync: another connection's Parse
 * landing between them replaces the unnamed statement ("unnamed prepared statement does not
 * exist", or worse, the other query's rows). This queue gives the session to one connection
 * from its first message until a round trip ends (Sync, a simple Query or Terminate) outside
 * a transaction block, so each connection sees the session a real server would give it.
 */
import type { PGlite } from '@electric-sql/pglite'

interface Queued {
  handlerId: number
  message: Uint8Array
  onData(data: Uint8Array): void
  resolve(bytes: number): void
  reject(error: Error): void
}

/** Message types after which the session may pass to another connection. */
const ROUND_TRIP_ENDS = new Set(['S', 'Q', 'X'].map((c) => c.charCodeAt(0)))

export class StatementQueue {
  private queue: Queued[] = []
  private running = false
  /** The connection that holds the session, or null when any may take it. */
  private owner: number | null = null

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject })
      void this.run()
    })
  }

  getQueueLength(): number {
    return this.queue.length
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true
      q.reject(new Error('Handler disconnected'))
      return false
    })
  }

  /** A connection that went away mid round trip or mid transaction gives the session back. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK')
    this.owner = null
    await this.run()
  }

  private async run(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      for (;;) {
        const i = this.owner === null ? 0 : this.queue.findIndex((q) => q.handlerId === this.owner)
        // The owner's next message has not arrived yet: the others wait for it.
        if (i === -1 || i >= this.queue.length) return
        const [query] = this.queue.splice(i, 1) as [Queued]
        let bytes = 0
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(query.message, {
              onRawData: (data) => {
                bytes += data.length
                query.onData(data)
              },
            }),
          )
        } catch (error) {
          query.reject(error as Error)
          continue
        }
        this.owner = this.passesOn(query.message) ? null : query.handlerId
        query.resolve(bytes)
      }
    } finally {
      this.running = false
    }
  }

  /** Whether the session is free after this message. A startup message has no type byte (0). */
  private passesOn(message: Uint8Array): boolean {
    const type = message[0] ?? 0
    if (type === 0) return true
    return ROUND_TRIP_ENDS.has(type) && !this.db.isInTransaction()
  }
}
