import { describe, expect, it } from 'vitest'
import { createForeground } from './foreground.js'

describe('foreground', () => {
  it('holds background work while a request is in progress and releases it when the last ends', async () => {
    const fg = createForeground()
    await fg.whenIdle(10_000)
    const exitA = fg.enter()
    const exitB = fg.enter()
    let released = false
    const waiting = fg.whenIdle(10_000).then(() => (released = true))
    exitA()
    exitA()
    await new Promise((r) => setImmediate(r))
    expect(released).toBe(false)
    expect(fg.active()).toBe(1)
    exitB()
    await waiting
    expect(released).toBe(true)
  })

  it('lets background work go on after the longest wait, so it is never starved', async () => {
    const fg = createForeground()
    fg.enter()
    const started = performance.now()
    await fg.whenIdle(20)
    expect(performance.now() - started).toBeGreaterThanOrEqual(15)
  })

  it('says searches come together while two are in progress, and for a window after they overlapped', () => {
    let clock = 1_000
    const fg = createForeground(() => clock)
    const first = fg.enter()
    expect(fg.together(1_000)).toBe(false)
    first()
    // One after the other, never at once: alone.
    const second = fg.enter()
    expect(fg.together(1_000)).toBe(false)
    const third = fg.enter()
    expect(fg.together(1_000)).toBe(true)
    third()
    second()
    clock += 999
    expect(fg.together(1_000)).toBe(true)
    clock += 1
    expect(fg.together(1_000)).toBe(false)
  })

  it('is quiet only once no search has been in progress for the whole window', () => {
    let clock = 1_000
    const fg = createForeground(() => clock)
    expect(fg.quietFor(250)).toBe(true)
    const exit = fg.enter()
    clock += 1_000
    expect(fg.quietFor(250)).toBe(false)
    exit()
    clock += 249
    expect(fg.quietFor(250)).toBe(false)
    clock += 1
    expect(fg.quietFor(250)).toBe(true)
  })
})
