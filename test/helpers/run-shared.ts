/**
 * One resource for every test project whose global setup asks for it. Vitest runs each
 * project's global setup, one after another in the runner's process, before any test: projects
 * naming the same setup file would each build the resource (a PGlite instance costs about
 * 1.6 s and hundreds of MB). The first caller starts it; the last caller's teardown stops it.
 */
type Started<T> = { value: T; stop: () => Promise<void> | void }
type Entry = { started: Promise<Started<unknown>>; users: number }

const holder = globalThis as { __mnemoTestShared?: Map<string, Entry> }
const registry: Map<string, Entry> = (holder.__mnemoTestShared ??= new Map<string, Entry>())

export async function runShared<T>(
  key: string,
  start: () => Promise<Started<T>>,
): Promise<{ value: T; release: () => Promise<void> }> {
  const entry = registry.get(key) ?? { started: start(), users: 0 }
  registry.set(key, entry)
  entry.users++
  const { value, stop } = (await entry.started) as Started<T>
  return {
    value,
    async release() {
      if (--entry.users > 0) return
      registry.delete(key)
      await stop()
    },
  }
}
