import { MnemoError } from '../../src/client/index.js'

/** The MnemoError a call fails with; anything else (or no failure) fails the test. */
export async function failure(p: Promise<unknown>): Promise<MnemoError> {
  try {
    await p
  } catch (err) {
    if (err instanceof MnemoError) return err
    throw err
  }
  throw new Error('expected a MnemoError')
}
