/**
 * A small least-recently-used map: reading an entry makes it the newest, and past
 * `maxEntries` the oldest is dropped. (A Map keeps insertion order, which is all this needs.)
 */
export function createLru<K, V>(maxEntries: number) {
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
      if (map.size > maxEntries) map.delete(map.keys().next().value as K)
    },
    get size(): number {
      return map.size
    },
  }
}

export type Lru<K, V> = ReturnType<typeof createLru<K, V>>
