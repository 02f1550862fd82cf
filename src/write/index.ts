import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs'
import { chmod, lstat, mkdir, readdir, readFile, realpath, rmdir, unlink } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { visit } from 'jsonc-parser'
import { type Diagnostic, hasErrors, OacError } from '../diagnostics.js'
import type { MergeEntry, MergeFile, OutputFile, OwnedFile } from '../emit/types.js'
import { isTempName, replaceFileSync, sweepStaleTemps, syncFolder, writeFileAtomic } from './atomic.js'
import { jsonFormat } from './json-merge.js'
import { memoFor, stampOf, type TargetMemo } from './known-files.js'
import { acquireLock, type ReleaseLock, removeEmptyLockFolder } from './lock.js'
import { emptyManifest, hashBytes, hashValue, type Manifest, type MergeRecord, manifestPath, manifestText, readManifest } from './manifest.js'
import { formatPath, lineColumn, type MergeFormat, type MergeResult, type PlainValue, type PreviousEntry, samePath, type UserOriginal } from './merge-common.js'
import { findSecrets, secretDiagnostics } from './secrets.js'
import { tomlFormat } from './toml-merge.js'

export { mergeJsonText } from './json-merge.js'
export { mergeTomlText } from './toml-merge.js'

/** `write` changes files; `check` and `dry-run` write nothing and report what would change. */
export type WriteMode = 'write' | 'check' | 'dry-run'

export interface WriteReport {
  /** Paths (relative to the target) written, or that would be written. */
  written: string[]
  unchanged: string[]
  /** Paths removed (files we generated before and no longer do), or that would be removed. */
  removed: string[]
  diagnostics: Diagnostic[]
}

export interface WriteOptions {
  /** Absolute path of the folder the tree goes into. */
  target: string
  mode: WriteMode
  /** Overwrite user files in the way of owned files, and our files or entries edited by hand. */
  force: boolean
  /** Who is writing: the MCP server name, so apps sharing a target keep separate manifests. */
  owner: string
}

const ownWritesSet = new Set<string>()

/** Absolute paths this process has written or removed: a watch driver ignores change events on them. */
export const ownWrites: ReadonlySet<string> = ownWritesSet

/** True for paths our writes touch, temp and lock files included. */
export function isOwnWrite(path: string): boolean {
  return ownWritesSet.has(resolve(path)) || isTempName(basename(path)) || resolve(path).split(sep).includes('.oac')
}

type Operation =
  // `userFile`: a file that was there before (we merge into it): it keeps its permissions exactly and is flushed to disk.
  // `sha256`: an owned file's content hash, taken when planned, for the rebuild memo (known-files.ts).
  // `mergeInputs`: what a merge file was made from, for the rebuild memo (known-files.ts).
  | { kind: 'write'; path: string; data: Buffer; mode: number; userFile: boolean; sha256?: string; realPath?: string; mergeInputs?: string }
  | { kind: 'chmod'; path: string; mode: number }
  | { kind: 'remove'; path: string }

interface Plan {
  operations: Operation[]
  unchanged: string[]
  /** Merge files found up to date: their absolute path, what they were made from, their stamp when read. */
  settledMerges: Array<{ path: string; inputs: string; stamp: string }>
  /** What this process left in the target last time (known-files.ts). */
  memo: TargetMemo
  diagnostics: Diagnostic[]
  next: Manifest
}

const FILE_MODE = 0o666
const EXECUTABLE_MODE = 0o777
const canChmod = process.platform !== 'win32'

/**
 * Writes generated files into the target: owned files whole (only when their bytes change,
 * atomically), merge files by merging our entries into the user's file. Files this owner wrote
 * before and no longer generates are removed; nothing else ever is. Everything is checked first
 * (user files in the way, hand edits, unparsable merge targets, literal secrets); on any error
 * nothing is written.
 */
export async function writeOutputs(files: OutputFile[], options: WriteOptions): Promise<WriteReport> {
  const target = resolve(options.target)
  const diagnostics = validateOutputs(files, options.owner)
  if (hasErrors(diagnostics)) return { written: [], unchanged: [], removed: [], diagnostics }
  const manifestFile = join(target, manifestPath(options.owner))
  const locks: ReleaseLock[] = []
  try {
    const writing = options.mode === 'write'
    if (writing) locks.push(await acquireLock(lockPath(target, manifestPath(options.owner))))
    const known = memoFor(target).knownManifest(manifestFile)
    const { manifest: previous, diagnostics: manifestDiagnostics } = known
      ? { manifest: known.manifest, diagnostics: [] }
      : await readManifest(manifestFile, displayPath(target, manifestPath(options.owner)), options.owner)
    if (hasErrors(manifestDiagnostics)) return { written: [], unchanged: [], removed: [], diagnostics: manifestDiagnostics }
    // One lock for every merge file of the target rather than one each: a target of 100 agents has
    // 100 Codex agent files, and a lock costs six file operations.
    if (writing && (files.some((f) => f.kind === 'merge') || Object.keys(previous.merges).length > 0)) {
      locks.push(await acquireLock(lockPath(target, 'merges')))
    }
    const plan = await planWrites(target, files, previous, options)
    const report: WriteReport = {
      written: plan.operations.filter((op) => op.kind !== 'remove').map((op) => op.path).sort(),
      unchanged: plan.unchanged.sort(),
      removed: plan.operations.filter((op) => op.kind === 'remove').map((op) => op.path).sort(),
      diagnostics: plan.diagnostics,
    }
    if (hasErrors(plan.diagnostics)) return { ...report, written: [], removed: [] }
    if (!writing) return report
    await execute(target, previous, plan)
    return report
  } catch (error) {
    if (error instanceof OacError) return { written: [], unchanged: [], removed: [], diagnostics: [...error.diagnostics] }
    throw error
  } finally {
    for (const release of locks.reverse()) await release()
    if (locks.length > 0) await removeEmptyLockFolder(join(target, '.oac', 'locks'))
  }
}

function lockPath(target: string, path: string): string {
  return join(target, '.oac', 'locks', `${encodeURIComponent(path)}.lock`)
}

/** A path to show people: relative to the working directory when inside it, else absolute. */
function displayPath(target: string, path: string): string {
  const absolute = join(target, path)
  const fromCwd = relative(process.cwd(), absolute)
  return fromCwd === '' || fromCwd.startsWith('..') || isAbsolute(fromCwd) ? absolute : fromCwd.split(sep).join('/')
}

function validateOutputs(files: OutputFile[], owner: string): Diagnostic[] {
  const diagnostics: Diagnostic[] = []
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(owner)) {
    diagnostics.push({
      severity: 'error',
      code: 'owner-invalid',
      message: `The server name "${owner}" cannot name a manifest file.`,
      fix: 'Use letters, digits, ".", "_" and "-" only in the server name.',
    })
  }
  const seen = new Set<string>()
  for (const file of files) {
    const segments = file.path.split('/')
    const valid =
      file.path !== '' &&
      !file.path.includes('\\') &&
      !file.path.includes('\0') &&
      !isAbsolute(file.path) &&
      !/^[A-Za-z]:/.test(file.path) &&
      segments.every((s) => s !== '' && s !== '.' && s !== '..') &&
      segments[0] !== '.oac'
    if (!valid) {
      diagnostics.push({
        severity: 'error',
        code: 'output-path-invalid',
        message: `Generated file path "${file.path}" is not a plain relative path inside the target.`,
        fix: 'This is a bug in an unplugin-oac emitter: please report it.',
      })
    } else if (seen.has(file.path)) {
      diagnostics.push({
        severity: 'error',
        code: 'output-path-duplicate',
        message: `Two generated files have the same path "${file.path}".`,
        fix: 'Give the tools or agents that produce it different names.',
      })
    }
    seen.add(file.path)
  }
  return diagnostics
}

/** The file's bytes, undefined when it does not exist, 'folder' when a folder is in the way. */
async function readExisting(path: string): Promise<Buffer | 'folder' | undefined> {
  try {
    return await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'EISDIR') return 'folder'
    throw error
  }
}

/** An owned file's bytes, whether it is executable and its stamp; undefined when missing, 'folder' when a folder is in the way. */
function readOwnedSync(path: string): { data: Buffer; executable: boolean; stamp: string } | 'folder' | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    // Windows refuses to open a folder; POSIX opens it, and fstat tells.
    if (code === 'EISDIR') return 'folder'
    throw error
  }
  try {
    const info = fstatSync(fd)
    if (info.isDirectory()) return 'folder'
    return { data: readFileSync(fd), executable: (info.mode & 0o111) !== 0, stamp: stampOf(info) }
  } finally {
    closeSync(fd)
  }
}

function hasOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

async function planWrites(target: string, files: OutputFile[], previous: Manifest, options: WriteOptions): Promise<Plan> {
  const plan: Plan = { operations: [], unchanged: [], settledMerges: [], memo: memoFor(target), diagnostics: [], next: emptyManifest(options.owner) }
  const nextFiles = new Map<string, { sha256: string[] }>()
  const nextMerges = new Map<string, MergeRecord>()
  const owned = files.filter((f): f is OwnedFile => f.kind === 'owned')
  const merges = files.filter((f): f is MergeFile => f.kind === 'merge')
  const current = new Set(files.map((f) => f.path))

  // Owned files are read synchronously: a large registry has thousands, and a sync read skips the
  // thread-pool round trip each async one makes (about 3x faster on a 3,400-file tree here).
  // A file in a folder that does not exist does not either: one check per folder, not per file, on a first build.
  const folders = new Map<string, boolean>()
  const inExistingFolder = (path: string): boolean => {
    const folder = dirname(path)
    let exists = folders.get(folder)
    if (exists === undefined) folders.set(folder, (exists = statSync(folder, { throwIfNoEntry: false }) !== undefined))
    return exists
  }
  for (const file of owned) {
    const sha256 = plan.memo.plannedHash(join(target, file.path), file.content)
    nextFiles.set(file.path, { sha256: [sha256] })
    // What we left there and have not changed since was scanned and compared when we left it.
    const known = plan.memo.statIfKnown(join(target, file.path), sha256)
    if (known && (!canChmod || ((known.mode & 0o111) !== 0) === Boolean(file.executable))) {
      plan.unchanged.push(file.path)
      continue
    }
    const data = Buffer.from(file.content, 'utf8')
    plan.diagnostics.push(...secretDiagnostics(file, displayPath(target, file.path)))
    const folderExists = inExistingFolder(join(target, file.path))
    await planOwnedFile(target, file, data, sha256, hasOwn(previous.files, file.path), options.force, plan, folderExists)
  }

  for (const file of merges) {
    const record = hasOwn(previous.merges, file.path)
    const planned = await planMerge(target, file, record, options.force, plan)
    if (planned) nextMerges.set(file.path, planned)
  }

  for (const [path, record] of Object.entries(previous.files)) {
    if (current.has(path)) continue
    const existing = await readExisting(join(target, path))
    if (!Buffer.isBuffer(existing)) continue
    if (record.sha256.includes(hashBytes(existing))) plan.operations.push({ kind: 'remove', path })
    else {
      plan.diagnostics.push({
        severity: 'warning',
        code: 'owned-file-kept',
        file: displayPath(target, path),
        message: `${path} was generated by unplugin-oac, which no longer generates it, but it was edited by hand: it was left in place and is yours now.`,
        fix: 'Delete it if you no longer need it.',
      })
    }
  }

  for (const [path, record] of Object.entries(previous.merges)) {
    if (current.has(path)) continue
    const leftover = await planMerge(target, { kind: 'merge', path, format: record.format, entries: [] }, record, options.force, plan)
    if (leftover && leftover.entries.length > 0) nextMerges.set(path, leftover)
  }

  plan.next = {
    version: 1,
    owner: options.owner,
    files: Object.fromEntries(nextFiles),
    merges: Object.fromEntries(nextMerges),
    folders: previous.folders,
  }
  return plan
}

async function planOwnedFile(
  target: string,
  file: OwnedFile,
  data: Buffer,
  sha256: string,
  record: { sha256: string[] } | undefined,
  force: boolean,
  plan: Plan,
  folderExists: boolean,
): Promise<void> {
  const path = join(target, file.path)
  const mode = file.executable ? EXECUTABLE_MODE : FILE_MODE
  const found = folderExists ? readOwnedSync(path) : undefined
  const shown = displayPath(target, file.path)
  if (found === 'folder') {
    plan.diagnostics.push({
      severity: 'error',
      code: 'owned-path-taken',
      file: shown,
      message: `A folder sits where unplugin-oac generates the file ${file.path}.`,
      fix: 'Move or delete the folder, or rename the tool or agent that generates this file.',
    })
    return
  }
  if (found === undefined) {
    plan.operations.push({ kind: 'write', path: file.path, data, mode, userFile: false, sha256 })
    return
  }
  const existing = found.data
  if (existing.equals(data)) {
    plan.memo.rememberFile(path, sha256, found.stamp)
    if (canChmod && found.executable !== Boolean(file.executable)) {
      plan.operations.push({ kind: 'chmod', path: file.path, mode: file.executable ? 0o755 : 0o644 })
    } else plan.unchanged.push(file.path)
    return
  }
  // Ours as we left it, or ours left empty: a power cut right after a write can empty a file, since
  // generated files are written without a flush (see replaceFileSync); an empty file holds nothing to lose.
  if (record && (existing.length === 0 || record.sha256.includes(hashBytes(existing)))) {
    plan.operations.push({ kind: 'write', path: file.path, data, mode, userFile: false, sha256 })
    return
  }
  // Hand edits and user files are never overwritten silently: an error names them; `force` overwrites with a warning.
  const other = record ? undefined : await otherOwner(target, file.path, plan.next.owner)
  const message = record
    ? `${file.path} was generated by unplugin-oac and has been edited by hand since; the edit would be lost.`
    : other !== undefined
      ? `${file.path} belongs to the app whose MCP server is "${other}" (.oac/manifest.${other}.json lists it), and this app ("${plan.next.owner}") generates the same path.`
      : `${file.path} exists and was not written by unplugin-oac; it would be overwritten.`
  const fix = record
    ? 'Make the change in the definitions (or config) instead, and delete the file or build with force to regenerate it.'
    : other !== undefined
      ? `Ship that tool or agent from one of the two apps only, or rename it in one (opencode and oh-my-pi name the file after it, whatever the serverName). If "${other}" is this app's former serverName, build with serverName "${other}" again. Not force: it would overwrite the other app's file.`
      : 'Move or rename your file, rename the tool or agent that generates this path, or build with force to overwrite it.'
  plan.diagnostics.push({ severity: force ? 'warning' : 'error', code: record ? 'owned-file-edited' : 'owned-path-taken', file: shown, message, fix })
  if (force) plan.operations.push({ kind: 'write', path: file.path, data, mode, userFile: false, sha256 })
}

/** The MCP server name of another app whose manifest in the same target lists the path. */
async function otherOwner(target: string, path: string, owner: string): Promise<string | undefined> {
  return otherManifest(target, owner, (manifest) => Object.hasOwn(manifest.files, path))
}

/** The owner of another app's manifest in the target that `lists` accepts. */
async function otherManifest(target: string, owner: string, lists: (manifest: Manifest) => boolean): Promise<string | undefined> {
  const names = await readdir(join(target, '.oac')).catch(() => [] as string[])
  for (const name of names) {
    const other = /^manifest\.(.+)\.json$/.exec(name)?.[1]
    if (!other || other === owner) continue
    const { manifest } = await readManifest(join(target, '.oac', name), name, other).catch(() => ({ manifest: emptyManifest(other) }))
    if (lists(manifest)) return other
  }
  return undefined
}

const FORMATS: Record<MergeFile['format'], MergeFormat> = { json: jsonFormat, toml: tomlFormat }

/** True when JSON text holds a `//` or block comment (outside strings). */
function hasJsonComment(text: string): boolean {
  let found = false
  visit(text, { onComment: () => (found = true) })
  return found
}

/**
 * Merges one file (or, with no entries, removes our old entries from it). Who wrote a key decides:
 *
 * - A key the manifest records as ours is updated; edited by hand since, it is an error to overwrite
 *   (a warning with force), and once we no longer generate it, it is removed only if it still holds
 *   what we wrote (else it stays, with a warning), or given back the user's definition we replaced.
 * - A key the manifest does not record is the user's. Holding another value than ours, it is an error
 *   naming both values (with force: replaced, and the user's definition recorded to be put back).
 *   Holding exactly our value, it is left as it is and not recorded: the user wrote it before us, so
 *   it outlives our entry, as a careful user expects of a key they wrote (the reported bug: an agent
 *   removed from the registry took the hand-written `name` line with it). Deleting the key hands it to us.
 *
 * A key already holding our value keeps its bytes (a comment beside it included). Returns the record
 * for the next manifest.
 */
async function planMerge(target: string, file: MergeFile, record: MergeRecord | undefined, force: boolean, plan: Plan): Promise<MergeRecord | undefined> {
  const path = join(target, file.path)
  // Still what this process merged there, from these entries and with this record: nothing to do.
  if (record && plan.memo.isKnownMerge(path, mergeInputs(file, record))) {
    plan.unchanged.push(file.path)
    return record
  }
  const shown = displayPath(target, file.path)
  const link = await lstat(path).catch(() => undefined)
  // Through a symlink to the user's real file; a dangling one is replaced like a missing file.
  const realPath = link?.isSymbolicLink() ? await realpath(path).catch(() => undefined) : undefined
  // Taken before the read: a change in between makes the stamp stale, never the content.
  const readStats = statSync(realPath ?? path, { throwIfNoEntry: false })
  const existing = await readExisting(realPath ?? path)
  if (existing === 'folder') {
    plan.diagnostics.push({
      severity: 'error',
      code: 'owned-path-taken',
      file: shown,
      message: `A folder sits where unplugin-oac merges its entries into the file ${file.path}.`,
      fix: 'Move or delete the folder.',
    })
    return undefined
  }
  if (existing === undefined && file.entries.length === 0) return undefined
  const raw = existing?.toString('utf8')
  const bom = raw?.startsWith('\uFEFF') ? '\uFEFF' : ''
  const text = raw === undefined ? undefined : raw.slice(bom.length)
  const format = FORMATS[file.format]
  const read = (keyPath: readonly string[]): PlainValue | undefined => (text === undefined ? undefined : format.read(text, keyPath))

  if (file.strictJsonReader && text !== undefined && hasJsonComment(text)) {
    plan.diagnostics.push({
      severity: 'warning',
      code: 'merge-file-commented',
      file: shown,
      message: `${file.path} has a comment, and ${file.strictJsonReader} skips the whole file when it has one: it will not see the ${file.entries.map((entry) => entry.keyPath.join('.')).join(', ')} entry (nor any other).`,
      fix: `Remove the comments from ${file.path} (its entries are merged and kept either way).`,
    })
  }

  const recorded = new Map((record?.entries ?? []).map((entry) => [JSON.stringify(entry.keyPath), entry]))
  const writing: MergeEntry[] = []
  // Ours and already right: not written, but the merge must know they are our text (which tables are our last ones, say).
  const kept: string[][] = []
  const claimed: { keyPath: string[]; original?: UserOriginal }[] = []
  for (const entry of file.entries) {
    const old = recorded.get(JSON.stringify(entry.keyPath))
    const now = read(entry.keyPath)
    const nowHash = now === undefined ? undefined : hashValue(now)
    // Read back only for a key that is there (a first write skips it).
    const wanted = nowHash === undefined ? undefined : format.readBack(entry.value)
    const alreadyRight = wanted !== undefined && nowHash === hashValue(wanted)
    // A forced write that never landed (the build was killed before it) left the user's value: still theirs.
    const ours = old && !(old.original && nowHash === hashValue(old.original.value) && !old.sha256.includes(nowHash)) ? old : undefined
    if (ours) {
      // A key of ours the user deleted takes the definition we replaced with it.
      claimed.push({ keyPath: entry.keyPath, original: now === undefined ? undefined : ours.original })
      if (alreadyRight) {
        kept.push(entry.keyPath)
        continue
      }
      writing.push(entry)
      if (nowHash !== undefined && !ours.sha256.includes(nowHash)) {
        plan.diagnostics.push({
          severity: force ? 'warning' : 'error',
          code: 'merge-entry-edited',
          file: shown,
          message: `The entry ${entry.keyPath.join('.')} in ${file.path} was written by unplugin-oac and has been edited by hand since; the edit would be lost.`,
          fix: 'Make the change in the definitions (or config) instead, and remove the entry or build with force to regenerate it.',
        })
      }
      continue
    }
    if (now === undefined) {
      claimed.push({ keyPath: entry.keyPath })
      writing.push(entry)
      continue
    }
    if (alreadyRight) continue
    const definition = format.definition(text as string, entry)
    // Two apps writing one target can both generate an agent of one name: then the key is the other app's.
    const writer = await otherManifest(target, plan.next.owner, (manifest) =>
      Boolean(hasOwn(manifest.merges, file.path)?.entries.some((e) => samePath(e.keyPath, entry.keyPath))),
    )
    const conflict = { keyPath: entry.keyPath, theirs: now, ours: wanted ?? null, writer }
    const original = definition?.original
    if (force && original && findSecrets(original.text ?? JSON.stringify(original.value)).length > 0) {
      // Kept to be put back, it would be copied into the manifest, which is committed with the tree.
      plan.diagnostics.push({
        severity: 'error',
        code: 'merge-key-secret',
        file: shown,
        ...(definition ? lineColumn(text as string, definition.offset) : {}),
        message: `The key ${formatPath(entry.keyPath)} in ${file.path}, which force would replace, holds what looks like a secret; unplugin-oac would have to copy it into ${manifestPath(plan.next.owner)} to put it back later, so nothing was written.`,
        fix: `Move the secret out of ${file.path} (into an environment variable the harness reads), or delete ${formatPath(entry.keyPath)}, then build again.`,
      })
      continue
    }
    plan.diagnostics.push(userKeyDiagnostic(file, shown, text as string, definition, conflict, force, plan.next.owner))
    claimed.push({ keyPath: entry.keyPath, original })
    writing.push(entry)
  }

  const removable: PreviousEntry[] = []
  for (const old of record?.entries ?? []) {
    if (file.entries.some((entry) => samePath(entry.keyPath, old.keyPath))) continue
    const now = read(old.keyPath)
    if (now === undefined) continue // deleted by the user
    if (old.sha256.includes(hashValue(now))) removable.push({ keyPath: old.keyPath, original: old.original })
    // The user's own value again: put back by hand, or by a build killed before its manifest.
    else if (old.original && hashValue(now) === hashValue(old.original.value)) continue
    else {
      plan.diagnostics.push({
        severity: 'warning',
        code: 'merge-entry-kept',
        file: shown,
        message: `The entry ${old.keyPath.join('.')} in ${file.path} is no longer generated, but it was edited by hand: it was left in place and is yours now.`,
        fix: 'Remove it if you no longer need it.',
      })
    }
  }

  let result: MergeResult
  try {
    result = format.merge(text, { ...file, entries: writing }, removable, {
      kept,
      forced: claimed.filter((entry) => entry.original).map((entry) => entry.keyPath),
      tablesSeparator: record?.tablesSeparator,
    })
  } catch (error) {
    if (!(error instanceof OacError)) throw error
    plan.diagnostics.push(...error.diagnostics.map((d) => ({ ...d, file: shown })))
    return undefined
  }
  const merged = result.text
  plan.diagnostics.push(...secretDiagnostics(file, shown, merged))
  // Ours to delete once empty only if we made it: now, or the first time (and it was not replaced since).
  const created = existing === undefined || (record?.created ?? false)
  const next: MergeRecord = {
    format: file.format,
    created,
    entries: claimed.map(({ keyPath, original }) => ({
      keyPath,
      sha256: [hashValue(format.read(merged, keyPath) ?? null)],
      ...(original ? { original } : {}),
    })),
    ...(result.tablesSeparator === undefined ? {} : { tablesSeparator: result.tablesSeparator }),
  }
  const existingMode = canChmod && readStats && existing !== undefined ? readStats.mode & 0o7777 : FILE_MODE
  const inputs = mergeInputs(file, next)
  if (file.entries.length === 0 && created && merged.trim() === emptySkeleton(file.format, removable).trim()) {
    // We created the file and nothing but our (now removed) entries' empty parents is left, and blank lines (typed below our tables, say).
    plan.operations.push({ kind: 'remove', path: file.path })
  } else if (merged === text) {
    plan.unchanged.push(file.path)
    if (readStats) plan.settledMerges.push({ path, inputs, stamp: stampOf(readStats) })
  } else {
    const data = Buffer.from(bom + merged, 'utf8')
    plan.operations.push({ kind: 'write', path: file.path, data, mode: existingMode, userFile: existing !== undefined, realPath, mergeInputs: inputs })
  }
  return next
}

/** How a value reads in a message: JSON, cut short when long. */
function shortValue(value: PlainValue): string {
  const json = JSON.stringify(value)
  return json.length > 80 ? `${json.slice(0, 77)}...` : json
}

/** A key the user wrote (or another app) that our entry would change: both values, where, and the three ways out. */
function userKeyDiagnostic(
  file: MergeFile,
  shown: string,
  text: string,
  definition: { offset: number; original?: UserOriginal } | undefined,
  conflict: { keyPath: string[]; theirs: PlainValue; ours: PlainValue; writer: string | undefined },
  force: boolean,
  owner: string,
): Diagnostic {
  const { keyPath, theirs, ours, writer } = conflict
  const at = definition ? lineColumn(text, definition.offset) : undefined
  const key = formatPath(keyPath)
  const kept = definition?.original
    ? `${writer ? 'its' : 'your'} value is kept in ${manifestPath(owner)} and put back once unplugin-oac no longer generates ${key} here.`
    : `it cannot be put back automatically (it is not a table), so here it is in full: ${JSON.stringify(theirs)}.`
  const by = writer ? `written by the app whose MCP server is "${writer}", not by this one ("${owner}")` : 'written by you, not by unplugin-oac'
  const held = `The key ${key} in ${file.path} holds ${shortValue(theirs)}, ${by}`
  const message = force
    ? `${held}; force replaces it with ${shortValue(ours)}, and ${kept}`
    : `${held}, which would replace it with ${shortValue(ours)}; nothing was written.`
  // The server's name is in the key path of a server entry; any other key of a merge file comes from an agent.
  const rename = keyPath.includes(owner) ? 'Rename the MCP server (serverName, or --server-name)' : 'Rename the agent'
  const yours = writer ? 'its value' : 'your value'
  return {
    severity: force ? 'warning' : 'error',
    code: 'merge-key-taken',
    file: shown,
    ...(at ? { line: at.line, column: at.column } : {}),
    message,
    fix: `${rename} so that it no longer writes ${key} here, delete ${key} from ${file.path} to let unplugin-oac write it, or build with force to replace ${yours} (unplugin-oac keeps it and puts it back when it stops generating ${key}).`,
  }
}

/** Each merge's inputs hash, by its entries and record: a rebuild plans the very same objects again (emit reuses its files, and the manifest this process wrote is reused). */
const mergeInputHashes = new WeakMap<readonly MergeEntry[], WeakMap<MergeRecord, string>>()

/** What a merge is made from: our entries, and the manifest record of them written alongside. */
function mergeInputs(file: MergeFile, record: MergeRecord): string {
  let byRecord = mergeInputHashes.get(file.entries)
  if (!byRecord) mergeInputHashes.set(file.entries, (byRecord = new WeakMap()))
  let hash = byRecord.get(record)
  if (hash === undefined) byRecord.set(record, (hash = hashValue({ entries: file.entries, record } as unknown as PlainValue)))
  return hash
}

/** What is left of a file we created once its entries are removed again. */
function emptySkeleton(format: MergeFile['format'], entries: PreviousEntry[]): string {
  const file: MergeFile = { kind: 'merge', path: 'skeleton', format, entries: entries.map((e) => ({ keyPath: e.keyPath, value: {} })) }
  const { merge } = FORMATS[format]
  const created = merge(undefined, file, [], { kept: [], forced: [] })
  return merge(created.text, { ...file, entries: [] }, file.entries, { kept: [], forced: [], tablesSeparator: created.tablesSeparator }).text
}

/** The folders (relative to the target) that writing `path` will create, outermost first.
 * `known` remembers each folder's existence, so a folder of many files is checked once (synchronously,
 * as the files: a large tree has a folder per tool for some harnesses). */
function missingFolders(target: string, path: string, known: Map<string, boolean>): string[] {
  const missing: string[] = []
  for (let folder = dirname(path); folder !== '.'; folder = dirname(folder)) {
    let exists = known.get(folder)
    if (exists === undefined) {
      exists = statSync(join(target, folder), { throwIfNoEntry: false }) !== undefined
      known.set(folder, exists)
    }
    if (exists) break
    missing.unshift(folder)
  }
  return missing
}

async function execute(target: string, previous: Manifest, plan: Plan): Promise<void> {
  const manifestFile = join(target, manifestPath(plan.next.owner))
  const writes = plan.operations.filter((op) => op.kind === 'write')
  const created = new Set<string>()
  const known = new Map<string, boolean>()
  for (const op of writes) for (const folder of missingFolders(target, op.path, known)) created.add(folder)
  const folders = [...new Set([...previous.folders, ...created])]

  if (plan.operations.length > 0) {
    // Until every file is in place, the manifest accepts both the old and the new content.
    await writeManifest(manifestFile, transitional(previous, plan.next, folders), plan.memo)
  }
  const touched = new Set<string>()
  // Only the renames of the user's files are flushed; see replaceFileSync.
  const durableFolders = new Set<string>()
  await sweepStaleTemps(dirname(manifestFile))
  for (const folder of [...created].sort()) mkdirSync(join(target, folder), { recursive: true })
  for (const op of writes) {
    const folder = dirname(op.realPath ?? join(target, op.path))
    // A folder made just now holds no temp file of a killed build.
    const fresh = !op.realPath && created.has(dirname(op.path))
    if (!touched.has(folder) && !fresh) await sweepStaleTemps(folder)
    touched.add(folder)
    if (op.userFile) durableFolders.add(folder)
  }
  // Files we generate (whole, or merge files we create now) are many and small: written synchronously.
  // The user's files are flushed to disk, all at once so their flushes overlap.
  // What each merge file was made from is remembered only once the manifest holds its record (below).
  const mergedStamps: Array<{ path: string; inputs: string; stamp: string }> = [...plan.settledMerges]
  for (const op of writes) {
    if (op.userFile) continue
    const path = op.realPath ?? join(target, op.path)
    const stats = replaceFileSync(path, op.data, op.mode)
    if (op.sha256) plan.memo.rememberFile(path, op.sha256, stampOf(stats))
    if (op.mergeInputs) mergedStamps.push({ path: join(target, op.path), inputs: op.mergeInputs, stamp: stampOf(stats) })
    ownWritesSet.add(join(target, op.path))
  }
  await Promise.all(
    writes
      .filter((op) => op.userFile)
      .map(async (op) => {
        const stats = await writeFileAtomic(op.realPath ?? join(target, op.path), op.data, { mode: op.mode, exactMode: true })
        if (op.mergeInputs) mergedStamps.push({ path: join(target, op.path), inputs: op.mergeInputs, stamp: stampOf(stats) })
        ownWritesSet.add(join(target, op.path))
      }),
  )
  for (const op of plan.operations) {
    if (op.kind === 'chmod') {
      plan.memo.forget(join(target, op.path))
      await chmod(join(target, op.path), op.mode)
      ownWritesSet.add(join(target, op.path))
    } else if (op.kind === 'remove') {
      plan.memo.forget(join(target, op.path))
      await unlink(join(target, op.path)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error
      })
      ownWritesSet.add(join(target, op.path))
    }
  }
  plan.next.folders = await removeEmptyFolders(target, folders, plan.next)
  for (const folder of durableFolders) await syncFolder(folder).catch(() => undefined)
  await writeManifest(manifestFile, plan.next, plan.memo)
  for (const merged of mergedStamps) plan.memo.rememberMerge(merged.path, merged.inputs, merged.stamp)
}

function transitional(previous: Manifest, next: Manifest, folders: string[]): Manifest {
  // A rebuild rewrites a few of thousands of files: the others keep their record as it is. A plain copy
  // (with no prototype, whatever the paths) rather than a Map: this runs before every write.
  const files: Manifest['files'] = Object.assign(Object.create(null), previous.files)
  for (const path of Object.keys(next.files)) {
    const record = next.files[path] as { sha256: string[] }
    const old = hasOwn(files, path)
    if (old && record.sha256.every((hash) => old.sha256.includes(hash))) continue
    files[path] = { sha256: [...new Set([...(old?.sha256 ?? []), ...record.sha256])] }
  }
  const merges = new Map(Object.entries(previous.merges))
  for (const [path, record] of Object.entries(next.merges)) {
    const old = merges.get(path)
    const entries = new Map((old?.entries ?? []).map((e) => [JSON.stringify(e.keyPath), e]))
    for (const entry of record.entries) {
      const key = JSON.stringify(entry.keyPath)
      const before = entries.get(key)
      // The user's definition we replace (or replaced earlier) is kept until the write is done either way.
      const original = entry.original ?? before?.original
      entries.set(key, { keyPath: entry.keyPath, sha256: [...new Set([...(before?.sha256 ?? []), ...entry.sha256])], ...(original ? { original } : {}) })
    }
    // The blank line above our last tables as this write leaves it, or, where it leaves no tables, as it is now.
    const tablesSeparator = record.tablesSeparator ?? old?.tablesSeparator
    merges.set(path, {
      format: record.format,
      created: old?.created ?? record.created,
      entries: [...entries.values()],
      ...(tablesSeparator === undefined ? {} : { tablesSeparator }),
    })
  }
  return { version: 1, owner: next.owner, files, merges: Object.fromEntries(merges), folders }
}

/** Removes the folders we created that are empty and hold no current file; returns those still there. */
async function removeEmptyFolders(target: string, folders: string[], next: Manifest): Promise<string[]> {
  const needed = new Set<string>()
  for (const path of [...Object.keys(next.files), ...Object.keys(next.merges)]) {
    for (let folder = dirname(path); folder !== '.'; folder = dirname(folder)) needed.add(folder)
  }
  const kept: string[] = []
  // Deepest first, so a parent is empty by the time we reach it.
  for (const folder of [...folders].sort((a, b) => b.split('/').length - a.split('/').length)) {
    if (needed.has(folder)) {
      kept.push(folder)
      continue
    }
    const removed = await rmdir(join(target, folder)).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    )
    if (!removed) kept.push(folder)
  }
  return kept
}

async function writeManifest(path: string, manifest: Manifest, memo: TargetMemo): Promise<void> {
  const empty = Object.keys(manifest.files).length === 0 && Object.keys(manifest.merges).length === 0 && manifest.folders.length === 0
  ownWritesSet.add(path)
  if (empty) {
    memo.rememberManifest(path, manifest, '', undefined)
    await unlink(path).catch(() => undefined)
    return
  }
  const text = manifestText(manifest)
  const known = memo.knownManifest(path)
  if (known ? known.text === text : (await readExisting(path).catch(() => undefined))?.toString() === text) {
    const stats = statSync(path, { throwIfNoEntry: false })
    memo.rememberManifest(path, manifest, text, stats && stampOf(stats))
    return
  }
  await mkdir(dirname(path), { recursive: true })
  const stats = await writeFileAtomic(path, Buffer.from(text, 'utf8'), { mode: FILE_MODE })
  memo.rememberManifest(path, manifest, text, stampOf(stats))
}
