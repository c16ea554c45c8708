/** What this process holds open, read from /proc (Linux): for tests that bound descriptors and watches. */
import fs from 'node:fs'

/** Open file descriptors. */
export const openFds = (): number => fs.readdirSync('/proc/self/fd').length

/** Inotify watches held: the "inotify wd:" lines of the process's inotify descriptors. */
export function inotifyWatches(): number {
  let watches = 0
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      if (fs.readlinkSync(`/proc/self/fd/${fd}`) !== 'anon_inode:inotify') continue
      watches += fs
        .readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('inotify wd:')).length
    } catch {
      // Closed while looking: not held any more.
    }
  }
  return watches
}
