import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { currentStamp, isSettled, stampOf } from '../file-stamps.js'

/** A file's content hash; undefined when it cannot be read. */
function contentHash(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex')
  } catch {
    return undefined
  }
}

/** One input: its stamp, and for a file modified shortly before the build, its content hash too. */
interface Stamped {
  stamp: string
  racyHash?: string
}

/**
 * What a build read, as each file's stamp (see file-stamps.ts). `unchanged()` stays true while every
 * file keeps its stamp, so a build whose entries and inputs are as they were can be reused instead
 * of re-linked. A file modified shortly before the build (an edit that triggered it) cannot be
 * trusted by its stamp alone, since a coarse clock can hide a second edit: it is hashed before and
 * after the build, trusted only when both agree, and compared by content from then on, as git
 * does with its index's racy entries.
 */
export class InputStamps {
  private constructor(private readonly inputs: ReadonlyMap<string, Stamped | undefined>) {}

  /** The content hashes, before a build, of `files` (the last build's inputs) modified too recently to be trusted by stamp. */
  static hashRecent(files: readonly string[], now: number): Map<string, string> {
    const hashes = new Map<string, string>()
    for (const file of files) {
      const stats = statSync(file, { throwIfNoEntry: false })
      if (!stats || isSettled(stats, now)) continue
      const hash = contentHash(file)
      if (hash) hashes.set(file, hash)
    }
    return hashes
  }

  /** Stamps `files`, as read by a build that started at `startedAt` (ms since the epoch), with `hashedBefore` from hashRecent. */
  static take(files: readonly string[], startedAt: number, hashedBefore: ReadonlyMap<string, string>): InputStamps {
    const inputs = new Map<string, Stamped | undefined>()
    for (const file of files) {
      const stats = statSync(file, { throwIfNoEntry: false })
      if (!stats || stats.mtimeMs >= startedAt) inputs.set(file, undefined)
      else if (isSettled(stats, startedAt)) inputs.set(file, { stamp: stampOf(stats) })
      else {
        const before = hashedBefore.get(file)
        inputs.set(file, before !== undefined && contentHash(file) === before ? { stamp: stampOf(stats), racyHash: before } : undefined)
      }
    }
    return new InputStamps(inputs)
  }

  /** The files stamped. */
  files(): string[] {
    return [...this.inputs.keys()]
  }

  unchanged(): boolean {
    for (const [file, input] of this.inputs) {
      if (input === undefined || currentStamp(file) !== input.stamp) return false
      if (input.racyHash !== undefined && contentHash(file) !== input.racyHash) return false
    }
    return true
  }
}
