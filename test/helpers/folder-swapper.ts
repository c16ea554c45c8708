/** A real thread that swaps a folder for a symlink as fast as it can (race tests). */
import { Worker } from 'node:worker_threads'

/**
 * Swaps `<dir>/<name>` with the symlink `<dir>/<name>.link` in a loop on a real thread until
 * told to stop, as fast as it can.
 */
export function startSwapper(dir: string, name: string): { stop(): Promise<number> } {
  const worker = new Worker(
    `
    const fs = require('node:fs')
    const { workerData, parentPort } = require('node:worker_threads')
    const p = (n) => workerData.dir + '/' + workerData.name + n
    let stop = false
    let swaps = 0
    parentPort.on('message', () => (stop = true))
    const step = (from, to) => { try { fs.renameSync(p(from), p(to)) } catch {} }
    const loop = () => {
      for (let i = 0; i < 200 && !stop; i++) {
        step('', '.real'); step('.link', ''); step('', '.link'); step('.real', '')
        swaps++
      }
      if (stop) parentPort.postMessage(swaps)
      else setImmediate(loop)
    }
    loop()
    `,
    { eval: true, workerData: { dir, name } },
  )
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (swaps: number) => void worker.terminate().then(() => resolve(swaps)))
        worker.postMessage('stop')
      }),
  }
}
