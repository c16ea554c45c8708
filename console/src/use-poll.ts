import { useEffect, useRef } from 'preact/hooks'

/**
 * Runs `load` now and then every `everyMs` while the view is shown, one run at a time (a slow
 * answer is not overtaken by the next), again whenever one of `deps` changes.
 */
export function usePoll(load: (signal: AbortSignal) => Promise<void>, everyMs: number, deps: unknown[]): void {
  const latest = useRef(load)
  latest.current = load
  useEffect(() => {
    const abort = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const tick = async () => {
      await latest.current(abort.signal).catch(() => undefined)
      if (!abort.signal.aborted) timer = setTimeout(() => void tick(), everyMs)
    }
    void tick()
    return () => {
      abort.abort()
      clearTimeout(timer)
    }
  }, deps)
}
