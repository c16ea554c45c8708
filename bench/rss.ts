/** Resident set size of a process in MB, read from /proc (Linux); NaN elsewhere. */
import fs from 'node:fs'

export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : NaN
  } catch {
    return NaN
  }
}
