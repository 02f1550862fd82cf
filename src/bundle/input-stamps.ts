import { currentStamp, settledStamp } from '../file-stamps.js'

/**
 * What a build read, as each file's stamp (see file-stamps.ts). `unchanged()` stays true while every
 * file keeps its stamp, so a build whose entries and inputs are as they were can be skipped instead
 * of re-linked. A file missing, or modified too close to the build's start to be trusted, counts as changed.
 */
export class InputStamps {
  private constructor(private readonly stamps: ReadonlyMap<string, string | undefined>) {}

  /** Stamps `files`, as read by a build that started at `startedAt` (ms since the epoch). */
  static take(files: readonly string[], startedAt: number): InputStamps {
    return new InputStamps(new Map(files.map((file) => [file, settledStamp(file, startedAt)])))
  }

  unchanged(): boolean {
    for (const [file, stamp] of this.stamps) {
      if (stamp === undefined || currentStamp(file) !== stamp) return false
    }
    return true
  }
}
