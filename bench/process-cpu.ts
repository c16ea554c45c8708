/**
 * CPU time (user + system) a process has used, or one of its threads (`/proc/<pid>/task/<tid>`),
 * in ms, from /proc (Linux: clock ticks of 10 ms); NaN elsewhere or once it has exited. Less
 * sensitive than wall time to other load on the machine.
 */
import fs from 'node:fs'

/** CPU ms of the process or thread whose `stat` file is at `statPath`. */
export function cpuMsAt(statPath: string): number {
  try {
    const fields = fs.readFileSync(statPath, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return NaN
  }
}

/** CPU ms of process `pid`, all its threads. */
export const cpuMs = (pid: number | undefined): number => cpuMsAt(`/proc/${pid}/stat`)
