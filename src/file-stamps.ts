import { createHash } from 'node:crypto'
import { readFileSync, type Stats, statSync } from 'node:fs'

/** Modification times this close to a read are not trusted: a second write in the same tick of a
 * coarse clock (some file systems keep whole seconds, or two) leaves size and mtime as they were. */
const RACY_WINDOW_MS = 2_000

/** A file's stamp: size, modification time and inode, which any write or replacement changes. */
function stampOf(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino'>): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}`
}

/** True when the file was last modified long enough before `readAt` (ms since the epoch) for its stamp to tell later changes. */
function isSettled(stats: Pick<Stats, 'mtimeMs'>, readAt: number): boolean {
  return stats.mtimeMs < readAt - RACY_WINDOW_MS
}

/**
 * A file's stamp (size, modification time, inode), for a record kept between processes: undefined
 * when the file is missing, or was modified too recently (before `now` by less than the racy window)
 * for a later change to be told by its stamp.
 */
export function settledStamp(file: string, now: number): string | undefined {
  const stats = statSync(file, { throwIfNoEntry: false })
  return stats && isSettled(stats, now) ? stampOf(stats) : undefined
}

function contentHash(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex')
  } catch {
    return undefined
  }
}

/**
 * A file as some work read it, to tell later whether it changed without reading it again: its stamp,
 * and for a file modified shortly before the work (the edit that triggered a rebuild), whose stamp a
 * coarse clock could leave unchanged by a second edit, its content hash too. That hash is taken
 * before the work and again after it, and the file is trusted only when both agree, as git does
 * with its index's racy entries.
 */
export class FileVersion {
  private constructor(
    private readonly stamp: string,
    private readonly racyHash: string | undefined,
  ) {}

  /** Before work that starts at `now`: the content hashes of those of `files` modified too recently to be told apart by stamp. */
  static hashRecent(files: Iterable<string>, now: number): Map<string, string> {
    const hashes = new Map<string, string>()
    for (const file of files) {
      const stats = statSync(file, { throwIfNoEntry: false })
      if (!stats || isSettled(stats, now)) continue
      const hash = contentHash(file)
      if (hash !== undefined) hashes.set(file, hash)
    }
    return hashes
  }

  /**
   * After work that started at `startedAt` and read `file`: its version, or undefined when it cannot
   * be told apart later (without `hashedBefore` from hashRecent, a recently modified file cannot).
   */
  static take(file: string, startedAt: number, hashedBefore: ReadonlyMap<string, string> = new Map()): FileVersion | undefined {
    return FileVersion.taken(file, startedAt, () => hashedBefore.get(file))
  }

  /**
   * After `file` was read whole, as `text`, from `readAt` on: its version, or undefined when it changed
   * meanwhile. The text read is what the racy check compares the file with, so a file saved moments
   * before (the edit that started a rebuild) gets a version too; without one, every later rebuild
   * would count it as changed.
   */
  static ofRead(file: string, readAt: number, text: string): FileVersion | undefined {
    // Text that is not valid UTF-8 hashes otherwise than its bytes: no version, as for a change.
    return FileVersion.taken(file, readAt, () => createHash('sha256').update(text).digest('hex'))
  }

  // A stamp no older than the work's start (a save in the same millisecond: the clock read is whole
  // milliseconds, the file's time finer) is racy like any recent one: the hashes decide.
  private static taken(file: string, startedAt: number, hashBefore: () => string | undefined): FileVersion | undefined {
    const stats = statSync(file, { throwIfNoEntry: false })
    if (!stats) return undefined
    if (isSettled(stats, startedAt)) return new FileVersion(stampOf(stats), undefined)
    const before = hashBefore()
    return before !== undefined && contentHash(file) === before ? new FileVersion(stampOf(stats), before) : undefined
  }

  /** True while `file` is still this version. */
  holds(file: string): boolean {
    const stats = statSync(file, { throwIfNoEntry: false })
    if (!stats || stampOf(stats) !== this.stamp) return false
    return this.racyHash === undefined || contentHash(file) === this.racyHash
  }
}
