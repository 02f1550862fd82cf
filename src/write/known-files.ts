import { type Stats, statSync } from 'node:fs'
import { hashBytes, type Manifest } from './manifest.js'

export function stampOf(stats: Pick<Stats, 'size' | 'mtimeMs' | 'ino' | 'mode'>): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ino}:${stats.mode}`
}

/**
 * What this process last left in one target's generated files, so that the next build of the same
 * target (watch mode) can skip what is still as it was:
 *
 * - each owned file it wrote or found up to date: the content's hash and the file's stamp (size,
 *   modification time, inode, mode). A file whose stamp still matches, and whose new content has the
 *   same hash, is unchanged without being read and scanned again (a 3,400-file tree otherwise
 *   re-reads every file). Any change on disk (a hand edit, a replaced file, a chmod) changes the
 *   stamp, and the file is read as usual. Git's index trusts the same fields.
 * - each merge file: its stamp and what the merge was made from (our entries and the manifest record
 *   written with them). While both hold, merging again would give the same bytes and the same record.
 * - the hash of each file's planned content, which a rebuild mostly plans again as the very same string.
 * - the manifest it wrote, and its stamp: while it holds, the next build starts from that very object.
 */
export class TargetMemo {
  private manifest: { path: string; manifest: Manifest; text: string; stamp: string } | undefined
  private readonly files = new Map<string, { sha256: string; stamp: string }>()
  private readonly merges = new Map<string, { inputs: string; stamp: string }>()
  private readonly planned = new Map<string, { content: string; sha256: string }>()

  rememberFile(path: string, sha256: string, stamp: string): void {
    this.files.set(path, { sha256, stamp })
  }

  /** The file's stats when `path` still holds exactly what this process last saw there, and that had this hash. */
  statIfKnown(path: string, sha256: string): Stats | undefined {
    const last = this.files.get(path)
    if (last?.sha256 !== sha256) return undefined
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats !== undefined && stampOf(stats) === last.stamp ? stats : undefined
  }

  rememberMerge(path: string, inputs: string, stamp: string): void {
    this.merges.set(path, { inputs, stamp })
  }

  /** True when `path` still holds exactly what this process last merged there from these inputs. */
  isKnownMerge(path: string, inputs: string): boolean {
    const last = this.merges.get(path)
    if (last?.inputs !== inputs) return false
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats !== undefined && stampOf(stats) === last.stamp
  }

  /** The manifest at `path` as this process last wrote or found it, while the file still holds it: a rebuild neither reads nor parses it again. */
  knownManifest(path: string): { manifest: Manifest; text: string } | undefined {
    const last = this.manifest
    if (last?.path !== path) return undefined
    const stats = statSync(path, { throwIfNoEntry: false })
    return stats !== undefined && stampOf(stats) === last.stamp ? last : undefined
  }

  rememberManifest(path: string, manifest: Manifest, text: string, stamp: string | undefined): void {
    this.manifest = stamp === undefined ? undefined : { path, manifest, text, stamp }
  }

  /** Forgets a file (owned or merged) that was removed or changed by other means than a write. */
  forget(path: string): void {
    this.files.delete(path)
    this.merges.delete(path)
  }

  /** The sha256 of `content` (as UTF-8), planned for `path`; computed again only when the content changed. */
  plannedHash(path: string, content: string): string {
    const last = this.planned.get(path)
    if (last?.content === content) return last.sha256
    const sha256 = hashBytes(content)
    this.planned.set(path, { content, sha256 })
    return sha256
  }
}

/** A process that writes many targets (one-shot compiles, tests, the bench) keeps the memos of the
 * few it wrote last: a watch session writes the same one or two targets again and again. */
const MAX_TARGETS = 4
const memos = new Map<string, TargetMemo>()

/** The memo of the target folder at this absolute path (the most recently used ones are kept). */
export function memoFor(target: string): TargetMemo {
  const memo = memos.get(target) ?? new TargetMemo()
  memos.delete(target)
  memos.set(target, memo)
  for (const oldest of memos.keys()) {
    if (memos.size <= MAX_TARGETS) break
    memos.delete(oldest)
  }
  return memo
}
