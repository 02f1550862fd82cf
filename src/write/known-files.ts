import { type Stats, statSync } from 'node:fs'
import { hashBytes } from './manifest.js'

/**
 * What this process last left in each generated file it wrote or found up to date: the content's
 * hash and the file's stamp (size, modification time, inode, mode). The next build of the same
 * target in this process (watch mode) takes a file whose stamp still matches, and whose new content
 * has the same hash, as unchanged without reading and scanning it again: a rebuild of a 3,400-file
 * tree otherwise re-reads every file. Any change on disk (a hand edit, a replaced file, a chmod)
 * changes the stamp, and the file is read as usual. Git's index trusts the same fields.
 */
const known = new Map<string, { sha256: string; stamp: string }>()

export function stampOf(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino' | 'mode'>): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}:${stats.mode}`
}

export function rememberFile(path: string, sha256: string, stamp: string): void {
  known.set(path, { sha256, stamp })
}

export function forgetFile(path: string): void {
  known.delete(path)
}

/** The file's stats when `path` still holds exactly what this process last saw there, and that had this hash. */
export function statIfKnown(path: string, sha256: string): Stats | undefined {
  const last = known.get(path)
  if (last?.sha256 !== sha256) return undefined
  const stats = statSync(path, { throwIfNoEntry: false })
  return stats !== undefined && stampOf(stats) === last.stamp ? stats : undefined
}

/**
 * The same for merge files: the stamp each had when this process last wrote it or found it up to
 * date, and what that merge was made from (our entries, and the manifest record written with them).
 * While both still hold, merging again would give the same bytes and the same record.
 */
const knownMerges = new Map<string, { inputs: string; stamp: string }>()

export function rememberMerge(path: string, inputs: string, stamp: string): void {
  knownMerges.set(path, { inputs, stamp })
}

export function forgetMerge(path: string): void {
  knownMerges.delete(path)
}

/** True when `path` still holds exactly what this process last merged there from these inputs. */
export function isKnownMerge(path: string, inputs: string): boolean {
  const last = knownMerges.get(path)
  if (last?.inputs !== inputs) return false
  const stats = statSync(path, { throwIfNoEntry: false })
  return stats !== undefined && stampOf(stats) === last.stamp
}

/** The content hash of what was last planned for each generated file: a rebuild plans mostly the very same strings. */
const plannedHashes = new Map<string, { content: string; sha256: string }>()

/** The sha256 of `content` (as UTF-8), planned for `path`; computed again only when the content changed. */
export function plannedHash(path: string, content: string): string {
  const last = plannedHashes.get(path)
  if (last?.content === content) return last.sha256
  const sha256 = hashBytes(content)
  plannedHashes.set(path, { content, sha256 })
  return sha256
}
