/**
 * A small least-recently-used map: reading an entry makes it the newest, and past its
 * bounds the oldest entries are dropped (and handed to `onEvict`, to release what they
 * hold). The bound is a number of entries, and optionally a total weight (`weigh` gives an
 * entry's, e.g. its size in bytes) for values whose sizes differ a lot.
 * (A Map keeps insertion order, which is all this needs.)
 */
export type LruOptions<K, V> = {
  onEvict?: (key: K, value: V) => void
  /** Most total weight kept; with `weigh`. */
  maxWeight?: number
  weigh?: (value: V) => number
}

export function createLru<K, V>(maxEntries: number, opts: LruOptions<K, V> | ((key: K, value: V) => void) = {}) {
  const { onEvict, maxWeight = Infinity, weigh = () => 0 } = typeof opts === 'function' ? { onEvict: opts } : opts
  const map = new Map<K, V>()
  let weight = 0

  function drop(key: K, value: V): void {
    map.delete(key)
    weight -= weigh(value)
    onEvict?.(key, value)
  }

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
      const old = map.get(key)
      if (old !== undefined) {
        map.delete(key)
        weight -= weigh(old)
      }
      map.set(key, value)
      weight += weigh(value)
      while (map.size > maxEntries || (weight > maxWeight && map.size > 1)) {
        const [oldKey, oldValue] = map.entries().next().value as [K, V]
        drop(oldKey, oldValue)
      }
    },
    /** Whether `key` has an entry, without making it the newest. */
    has: (key: K): boolean => map.has(key),
    /** Removes an entry, handing it to `onEvict`; whether there was one. */
    delete(key: K): boolean {
      const value = map.get(key)
      if (value === undefined) return false
      drop(key, value)
      return true
    },
    get size(): number {
      return map.size
    },
    /** Total weight of the entries kept. */
    get weight(): number {
      return weight
    },
  }
}

export type Lru<K, V> = ReturnType<typeof createLru<K, V>>
