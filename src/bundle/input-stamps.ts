import { statSync } from 'node:fs'

/** Modification times this close to a build's start are not trusted: a second write in the same tick
 * of a coarse clock (some file systems keep whole seconds, or two) leaves size and mtime as they were. */
const RACY_WINDOW_MS = 2_000

/** Marks a file whose stamp cannot be trusted: it never matches, so the file counts as changed. */
const UNTRUSTED = ''

/**
 * What a build read, as each file's stamp (size, modification time, inode). `unchanged()` stays true
 * while every file keeps its stamp, so a build whose entries and inputs are as they were can be
 * skipped instead of re-linked. A file modified within RACY_WINDOW_MS of the build's start, or
 * missing, counts as changed (git's index follows the same rule).
 */
export class InputStamps {
  private constructor(private readonly stamps: ReadonlyMap<string, string>) {}

  /** Stamps `files`, as read by a build that started at `startedAt` (ms since the epoch). */
  static take(files: readonly string[], startedAt: number): InputStamps {
    const stamps = new Map<string, string>()
    for (const file of files) {
      const stats = statSync(file, { throwIfNoEntry: false })
      stamps.set(file, stats && stats.mtimeMs < startedAt - RACY_WINDOW_MS ? stampOf(stats) : UNTRUSTED)
    }
    return new InputStamps(stamps)
  }

  unchanged(): boolean {
    for (const [file, stamp] of this.stamps) {
      if (stamp === UNTRUSTED) return false
      const stats = statSync(file, { throwIfNoEntry: false })
      if (!stats || stampOf(stats) !== stamp) return false
    }
    return true
  }
}

function stampOf(stats: { size: number; mtimeMs: number; ino: number }): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`
}
