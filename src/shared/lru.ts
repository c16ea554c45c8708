/**
 * A small least-recently-used map: reading an entry makes it the newest, and past
 * `maxEntries` the oldest is dropped (and handed to `onEvict`, to release what it holds).
 * (A Map keeps insertion order, which is all this needs.)
 */
export function createLru<K, V>(maxEntries: number, onEvict?: (key: K, value: V) => void) {
  const map = new Map<K, V>()
  return {
    get(key: K): V | undefined {
      const value = map.get(key)
      if (value !== undefined) {
        map.delete(key)
        map.set(key, value)
      }
      return value
    },
    set(key: K, value: V): void {
      map.delete(key)
      map.set(key, value)
      if (map.size > maxEntries) {
        const [oldKey, oldValue] = map.entries().next().value as [K, V]
        map.delete(oldKey)
        onEvict?.(oldKey, oldValue)
      }
    },
    /** Removes an entry, handing it to `onEvict`; whether there was one. */
    delete(key: K): boolean {
      const value = map.get(key)
      if (value === undefined) return false
      map.delete(key)
      onEvict?.(key, value)
      return true
    },
    get size(): number {
      return map.size
    },
  }
}

export type Lru<K, V> = ReturnType<typeof createLru<K, V>>
