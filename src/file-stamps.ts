import { type Stats, statSync } from 'node:fs'

/** Modification times this close to a read are not trusted: a second write in the same tick of a
 * coarse clock (some file systems keep whole seconds, or two) leaves size and mtime as they were. */
const RACY_WINDOW_MS = 2_000

/** A file's stamp: size, modification time and inode, which any write or replacement changes. */
export function stampOf(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino'>): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`
}

/** The file's stamp now; undefined when it is missing. */
export function currentStamp(file: string): string | undefined {
  const stats = statSync(file, { throwIfNoEntry: false })
  return stats && stampOf(stats)
}

/** True when the file was last modified long enough before `readAt` (ms since the epoch) for its stamp to tell later changes. */
export function isSettled(stats: Pick<Stats, 'mtimeMs'>, readAt: number): boolean {
  return stats.mtimeMs < readAt - RACY_WINDOW_MS
}

/**
 * The stamp of a file read at `readAt`, when it can be trusted later to tell whether the file
 * changed: undefined when the file is missing or was modified too close to the read (git's index
 * follows the same rule).
 */
export function settledStamp(file: string, readAt: number): string | undefined {
  const stats = statSync(file, { throwIfNoEntry: false })
  return stats && isSettled(stats, readAt) ? stampOf(stats) : undefined
}
