import { statSync } from 'node:fs'
import { lstat, realpath } from 'node:fs/promises'
import { join } from 'node:path'
import { visit } from 'jsonc-parser'
import { type Diagnostic, OacError } from '../diagnostics.js'
import type { MergeEntry, MergeFile } from '../emit/types.js'
import { jsonFormat } from './json-merge.js'
import { stampOf } from './known-files.js'
import { canonicalRecord, hashValue, type Manifest, type MergeRecord, manifestPath } from './manifest.js'
import { arrayItem, formatPath, lineColumn, type MergeFormat, type MergeResult, type PlainValue, type PreviousEntry, samePath, shortValue, type UserOriginal } from './merge-common.js'
import { otherManifest } from './owners.js'
import { canChmod, displayPath, FILE_MODE, hasOwn, readExisting, type WritePlan } from './plan.js'
import { findSecrets } from '../secrets.js'
import { secretDiagnostics } from './secrets.js'
import { markdownFormat } from './markdown-merge.js'
import { tomlFormat } from './toml-merge.js'

const FORMATS: Record<MergeFile['format'], MergeFormat> = { json: jsonFormat, toml: tomlFormat, markdown: markdownFormat }

/** True when JSON text holds a `//` or block comment (outside strings). */
function hasJsonComment(text: string): boolean {
  let found = false
  visit(text, { onComment: () => (found = true) })
  return found
}

/** Plans the files we merge entries into: ours set, and those we no longer write removed (or the user's own definition given back). Returns their records. */
export async function planMerges(target: string, files: MergeFile[], previous: Manifest, force: boolean, plan: WritePlan): Promise<Map<string, MergeRecord>> {
  const next = new Map<string, MergeRecord>()
  for (const file of files) {
    const planned = await planMerge(target, file, hasOwn(previous.merges, file.path), force, plan)
    if (planned) next.set(file.path, planned)
  }
  return next
}

/** Takes our entries out of the files we merged into before and no longer do (`current`: every path generated now); returns the records of entries that stay. */
export async function planStaleMerges(target: string, previous: Manifest, current: ReadonlySet<string>, force: boolean, plan: WritePlan): Promise<Map<string, MergeRecord>> {
  const next = new Map<string, MergeRecord>()
  for (const [path, record] of Object.entries(previous.merges)) {
    if (current.has(path)) continue
    const leftover = await planMerge(target, { kind: 'merge', path, format: record.format, entries: [] }, record, force, plan)
    if (leftover && leftover.entries.length > 0) next.set(path, leftover)
  }
  return next
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
async function planMerge(target: string, file: MergeFile, record: MergeRecord | undefined, force: boolean, plan: WritePlan): Promise<MergeRecord | undefined> {
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
    const conflict = { keyPath: entry.keyPath, theirs: now, ours: wanted ?? null, writer, renamed: entry.renamed }
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
      scaffold: record?.scaffold,
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
  const next = canonicalRecord({
    format: file.format,
    created,
    entries: claimed.map(({ keyPath, original }) => ({
      keyPath,
      sha256: [hashValue(format.read(merged, keyPath) ?? null)],
      ...(original ? { original } : {}),
    })),
    ...(result.tablesSeparator === undefined ? {} : { tablesSeparator: result.tablesSeparator }),
    ...(result.scaffold === undefined ? {} : { scaffold: result.scaffold }),
  })
  const existingMode = canChmod && readStats && existing !== undefined ? readStats.mode & 0o7777 : FILE_MODE
  const inputs = mergeInputs(file, next)
  // We created the file and nothing is left but blank lines (typed below our tables, say), or, after a build whose
  // manifest did not record what its merges made (record.scaffold), our (now removed) entries' empty parents.
  const leftEmpty = merged.trim() === '' || (record?.scaffold === undefined && merged.trim() === emptySkeleton(file.format, removable).trim())
  if (file.entries.length === 0 && created && leftEmpty) {
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

/** A key the user wrote (or another app) that our entry would change: both values, where, and the three ways out. */
function userKeyDiagnostic(
  file: MergeFile,
  shown: string,
  text: string,
  definition: { offset: number; original?: UserOriginal } | undefined,
  conflict: { keyPath: string[]; theirs: PlainValue; ours: PlainValue; writer: string | undefined; renamed: string | undefined },
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
  const rename = conflict.renamed ? `Rename ${conflict.renamed}` : keyPath.includes(owner) ? 'Rename the MCP server (serverName, or --server-name)' : 'Rename the agent'
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
export function mergeInputs(file: MergeFile, record: MergeRecord): string {
  let byRecord = mergeInputHashes.get(file.entries)
  if (!byRecord) mergeInputHashes.set(file.entries, (byRecord = new WeakMap()))
  let hash = byRecord.get(record)
  if (hash === undefined) byRecord.set(record, (hash = hashValue({ entries: file.entries, record } as unknown as PlainValue)))
  return hash
}

/** What is left of a file we created once its entries are removed again. */
function emptySkeleton(format: MergeFile['format'], entries: PreviousEntry[]): string {
  const file: MergeFile = { kind: 'merge', path: 'skeleton', format, entries: entries.map((e) => ({ keyPath: e.keyPath, value: arrayItem(e.keyPath)?.item ?? {} })) }
  const { merge } = FORMATS[format]
  const created = merge(undefined, file, [], { kept: [], forced: [] })
  return merge(created.text, { ...file, entries: [] }, file.entries, { kept: [], forced: [], tablesSeparator: created.tablesSeparator }).text
}
