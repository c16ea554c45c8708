/**
 * The browser tests' Chromium: Debian's (CI installs it; never a downloaded build), headless,
 * with the flags this machine needs.
 */
import fs from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
import { expect } from 'vitest'

export const CHROMIUM = '/usr/bin/chromium'

export function launchChromium(): Promise<Browser> {
  expect(fs.existsSync(CHROMIUM), `${CHROMIUM} (Debian package chromium)`).toBe(true)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
}
