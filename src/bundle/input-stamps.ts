import { FileVersion } from '../file-stamps.js'

/**
 * What a build read, each file as a FileVersion. `unchanged()` stays true while every file is still
 * that version, so a build whose entries and inputs are as they were can be reused instead of
 * re-linked. A file that could not be versioned (missing, or modified during the build) counts as changed.
 */
export class InputStamps {
  private constructor(private readonly inputs: ReadonlyMap<string, FileVersion | undefined>) {}

  /** Versions `files`, as read by a build that started at `startedAt`, with `hashedBefore` from FileVersion.hashRecent. */
  static take(files: readonly string[], startedAt: number, hashedBefore: ReadonlyMap<string, string>): InputStamps {
    return new InputStamps(new Map(files.map((file) => [file, FileVersion.take(file, startedAt, hashedBefore)])))
  }

  files(): string[] {
    return [...this.inputs.keys()]
  }

  unchanged(): boolean {
    for (const [file, version] of this.inputs) if (!version?.holds(file)) return false
    return true
  }
}
