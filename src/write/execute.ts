import { mkdirSync, statSync } from 'node:fs'
import { chmod, mkdir, readdir, rmdir, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { isTempName, replaceFileSync, sweepStaleTemps, syncFolder, writeFileAtomic } from './atomic.js'
import { stampOf, type TargetMemo } from './known-files.js'
import { canonicalManifest, type Manifest, manifestPath, manifestText } from './manifest.js'
import type { Scaffold } from './merge-common.js'
import { FILE_MODE, hasOwn, readExisting, type WritePlan } from './plan.js'

const ownWritesSet = new Set<string>()

/** Absolute paths this process has written or removed: a watch driver ignores change events on them. */
export const ownWrites: ReadonlySet<string> = ownWritesSet

/** True for paths our writes touch, temp and lock files included. */
export function isOwnWrite(path: string): boolean {
  return ownWritesSet.has(resolve(path)) || isTempName(basename(path)) || resolve(path).split(sep).includes('.oac')
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

/** The folders (relative to the target) that the plan's writes will create. */
function createdFolders(target: string, plan: WritePlan): Set<string> {
  const created = new Set<string>()
  const known = new Map<string, boolean>()
  for (const op of plan.operations) if (op.kind === 'write') for (const folder of missingFolders(target, op.path, known)) created.add(folder)
  return created
}

/** Carries out the plan, the manifest last; returns whether the manifest was written (or removed). */
export async function execute(target: string, previous: Manifest, plan: WritePlan): Promise<boolean> {
  const manifestFile = join(target, manifestPath(plan.next.owner))
  const writes = plan.operations.filter((op) => op.kind === 'write')
  const created = createdFolders(target, plan)
  const folders = [...new Set([...previous.folders, ...created])]

  let manifestChanged = false
  if (plan.operations.length > 0) {
    // Until every file is in place, the manifest accepts both the old and the new content.
    manifestChanged = await writeManifest(manifestFile, transitional(previous, plan.next, folders), plan.memo)
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
  if (await writeManifest(manifestFile, plan.next, plan.memo)) manifestChanged = true
  for (const merged of mergedStamps) plan.memo.rememberMerge(merged.path, merged.inputs, merged.stamp)
  return manifestChanged
}

/**
 * For a check or a dry run, which write nothing: whether carrying out the plan would write (or
 * remove) the manifest, whose text is `before` now (undefined: there is none).
 */
export async function manifestWouldChange(target: string, previous: Manifest, plan: WritePlan, before: string | undefined): Promise<boolean> {
  const folders = [...new Set([...previous.folders, ...createdFolders(target, plan)])]
  const removed = new Set(plan.operations.filter((op) => op.kind === 'remove').map((op) => op.path))
  const next: Manifest = { ...plan.next, folders: await keptFolders(target, folders, plan.next, removed) }
  return manifestFileText(next) !== (before ?? '')
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
    // What merges made around our entries, before this write or by it: the file may hold either.
    const scaffold = eitherScaffold(old?.scaffold, record.scaffold)
    merges.set(path, {
      format: record.format,
      created: old?.created ?? record.created,
      entries: [...entries.values()],
      ...(tablesSeparator === undefined ? {} : { tablesSeparator }),
      ...(scaffold === undefined ? {} : { scaffold }),
    })
  }
  return { version: 1, owner: next.owner, files, merges: Object.fromEntries(merges), folders }
}

function eitherScaffold(before: Scaffold | undefined, after: Scaffold | undefined): Scaffold | undefined {
  if (!before || !after) return before ?? after
  const containers = new Map([...(before.containers ?? []), ...(after.containers ?? [])].map((path) => [JSON.stringify(path), path]))
  const document = after.document ?? before.document
  const lineEnd = after.lineEnd ?? before.lineEnd
  const insides = new Map([...(before.insides ?? []), ...(after.insides ?? [])].map((inside) => [JSON.stringify(inside.path), inside]))
  return {
    ...(containers.size > 0 ? { containers: [...containers.values()] } : {}),
    ...(document ? { document } : {}),
    ...(lineEnd ? { lineEnd } : {}),
    ...(insides.size > 0 ? { insides: [...insides.values()] } : {}),
  }
}

/** Removes the folders we created that are empty and hold no current file; returns those still there. */
async function removeEmptyFolders(target: string, folders: string[], next: Manifest): Promise<string[]> {
  return foldersLeft(folders, next, (folder) =>
    rmdir(join(target, folder)).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    ),
  )
}

/** The folders removeEmptyFolders would leave, once the files of `removed` are gone; removes nothing. */
function keptFolders(target: string, folders: string[], next: Manifest, removed: ReadonlySet<string>): Promise<string[]> {
  const gone = new Set(removed)
  return foldersLeft(folders, next, async (folder) => {
    const names = await readdir(join(target, folder)).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : undefined))
    const empty = names !== undefined && names.every((name) => gone.has(`${folder}/${name}`))
    if (empty) gone.add(folder)
    return empty
  })
}

/** The folders not needed by a current file that `remove` (deepest first) does not take away. */
async function foldersLeft(folders: string[], next: Manifest, remove: (folder: string) => Promise<boolean>): Promise<string[]> {
  const needed = new Set<string>()
  for (const path of [...Object.keys(next.files), ...Object.keys(next.merges)]) {
    for (let folder = dirname(path); folder !== '.'; folder = dirname(folder)) needed.add(folder)
  }
  const kept: string[] = []
  // Deepest first, so a parent is empty by the time we reach it.
  for (const folder of [...folders].sort((a, b) => b.split('/').length - a.split('/').length)) {
    if (needed.has(folder) || !(await remove(folder))) kept.push(folder)
  }
  return kept
}

/** The manifest file's text; '' for a manifest that records nothing, which is removed rather than written. */
function manifestFileText(manifest: Manifest): string {
  const empty = Object.keys(manifest.files).length === 0 && Object.keys(manifest.merges).length === 0 && manifest.folders.length === 0
  return empty ? '' : manifestText(manifest)
}

/** Writes the manifest (removes it when it records nothing) unless it holds that text already; returns whether it did. */
async function writeManifest(path: string, manifest: Manifest, memo: TargetMemo): Promise<boolean> {
  const canonical = canonicalManifest(manifest)
  const text = manifestFileText(canonical)
  ownWritesSet.add(path)
  if (text === '') {
    memo.rememberManifest(path, canonical, '', undefined)
    return unlink(path).then(
      () => true,
      () => false,
    )
  }
  const known = memo.knownManifest(path)
  if (known ? known.text === text : (await readExisting(path).catch(() => undefined))?.toString() === text) {
    const stats = statSync(path, { throwIfNoEntry: false })
    memo.rememberManifest(path, canonical, text, stats && stampOf(stats))
    return false
  }
  await mkdir(dirname(path), { recursive: true })
  const stats = await writeFileAtomic(path, Buffer.from(text, 'utf8'), { mode: FILE_MODE })
  memo.rememberManifest(path, canonical, text, stampOf(stats))
  return true
}
