import os from 'node:os'
import { describe, expect, it } from 'vitest'
import { createVolumeRoom } from './volume-room.js'

describe('hasRoomFor', () => {
  const space = createVolumeRoom(os.tmpdir())

  it('has room for nothing more and none for more than any volume holds', () => {
    expect(space.hasRoomFor(0, () => 0)).toBe(true)
    expect(space.hasRoomFor(Number.MAX_SAFE_INTEGER, () => 0)).toBe(false)
  })

  it('counts the pages the index freed', () => {
    const huge = 2 ** 50
    expect(space.hasRoomFor(huge, () => 0)).toBe(false)
    expect(space.hasRoomFor(huge, () => 2 * huge)).toBe(true)
  })

  it('has room when the volume cannot be read', () => {
    expect(createVolumeRoom('/no/such/folder').hasRoomFor(2 ** 50, () => 0)).toBe(true)
  })
})
