import { join, resolve } from 'node:path'
import { hasErrors, OacError } from '../diagnostics.js'
import type { MergeFile, OutputFile, OwnedFile } from '../emit/types.js'
import { execute, manifestWouldChange } from './execute.js'
import { memoFor } from './known-files.js'
import { acquireLock, type ReleaseLock, removeEmptyLockFolder } from './lock.js'
import { emptyManifest, type Manifest, manifestPath, readManifest } from './manifest.js'
import { planMerges, planStaleMerges } from './plan-merge.js'
import { planOwnedFiles, planStaleFiles } from './plan-owned.js'
import { displayPath, type WriteOptions, type WritePlan, type WriteReport } from './plan.js'
import { validateOutputs } from './validate.js'

export { isOwnWrite, ownWrites } from './execute.js'
export { owners } from './owners.js'
export { mergeJsonText } from './json-merge.js'
export type { WriteMode, WriteOptions, WriteReport } from './plan.js'
export { mergeMarkdownText } from './markdown-merge.js'
export { mergeTomlText } from './toml-merge.js'

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
  if (hasErrors(diagnostics)) return { written: [], unchanged: [], removed: [], manifestChanged: false, diagnostics }
  const manifestFile = join(target, manifestPath(options.owner))
  const locks: ReleaseLock[] = []
  try {
    const writing = options.mode === 'write'
    if (writing) locks.push(await acquireLock(lockPath(target, manifestPath(options.owner))))
    const known = memoFor(target).knownManifest(manifestFile)
    const {
      manifest: previous,
      text: previousText,
      diagnostics: manifestDiagnostics,
    } = known ? { ...known, diagnostics: [] } : await readManifest(manifestFile, displayPath(target, manifestPath(options.owner)), options.owner)
    if (hasErrors(manifestDiagnostics)) return { written: [], unchanged: [], removed: [], manifestChanged: false, diagnostics: manifestDiagnostics }
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
      manifestChanged: false,
      diagnostics: plan.diagnostics,
    }
    if (hasErrors(plan.diagnostics)) return { ...report, written: [], removed: [] }
    if (!writing) return { ...report, manifestChanged: await manifestWouldChange(target, previous, plan, previousText) }
    return { ...report, manifestChanged: await execute(target, previous, plan) }
  } catch (error) {
    if (error instanceof OacError) return { written: [], unchanged: [], removed: [], manifestChanged: false, diagnostics: [...error.diagnostics] }
    throw error
  } finally {
    for (const release of locks.reverse()) await release()
    if (locks.length > 0) await removeEmptyLockFolder(join(target, '.oac', 'locks'))
  }
}

function lockPath(target: string, path: string): string {
  return join(target, '.oac', 'locks', `${encodeURIComponent(path)}.lock`)
}

/** Plans every file (owned files, merges, then what we no longer generate), and the manifest that will record them. */
async function planWrites(target: string, files: OutputFile[], previous: Manifest, options: WriteOptions): Promise<WritePlan> {
  const plan: WritePlan = { operations: [], unchanged: [], settledMerges: [], memo: memoFor(target), diagnostics: [], next: emptyManifest(options.owner) }
  const owned = files.filter((f): f is OwnedFile => f.kind === 'owned')
  const merges = files.filter((f): f is MergeFile => f.kind === 'merge')
  const current = new Set(files.map((f) => f.path))
  const nextFiles = await planOwnedFiles(target, owned, previous, options.force, plan)
  const nextMerges = await planMerges(target, merges, previous, options.force, plan)
  await planStaleFiles(target, previous, current, plan)
  const leftovers = await planStaleMerges(target, previous, current, options.force, plan)
  plan.next = { version: 1, owner: options.owner, files: Object.fromEntries(nextFiles), merges: Object.fromEntries([...nextMerges, ...leftovers]), folders: previous.folders, ...(options.harnesses && { harnesses: [...options.harnesses] }) }
  return plan
}
