import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Diagnostic } from '../diagnostics.js'
import type { MergeFile } from '../emit/types.js'
import type { PlainValue, Scaffold, UserOriginal } from './merge-common.js'

/**
 * What one owner (one MCP server name, i.e. one app) wrote into a target folder, so the next build
 * removes exactly what it no longer generates and notices hand edits. Kept at
 * `.oac/manifest.<owner>.json`; deterministic (sorted, no timestamps) so it can be committed with
 * the tree. While a write is under way a record accepts both the old and the new hash, so a build
 * killed half-way leaves a manifest that still recognises every file it may have written.
 */
export interface Manifest {
  version: 1
  owner: string
  /** Files we generate whole, by path relative to the target: the content hashes we accept as ours. */
  files: Record<string, { sha256: string[] }>
  /** Files we merge entries into. `created`: the file did not exist before we first merged into it. */
  merges: Record<string, MergeRecord>
  /** Folders we created (relative to the target): removed again once empty and no longer needed. */
  folders: string[]
  /** The harnesses the tree was compiled for (`oac doctor` checks them); absent in manifests of earlier builds. */
  harnesses?: string[]
}

export interface MergeRecord {
  format: MergeFile['format']
  created: boolean
  entries: MergeRecordEntry[]
  /**
   * TOML (and Markdown, for our blocks): the blank line we put between the user's text and our last tables ('' when none, as in a file
   * we created), so removing the tables takes exactly that. Absent when the file holds no tables of ours,
   * and in manifests of earlier builds, which did not record it: the tables take one blank line.
   */
  tablesSeparator?: string
  /** What our merges made around our entries (parent objects and lists, a document, a line break), taken away with the last entry in it. */
  scaffold?: Scaffold
}

/**
 * A key we wrote into a merge file: the hashes of the values we accept as ours, and, when `force`
 * replaced the user's own definition of the key, that definition, put back when we stop writing the key.
 * A key the user wrote is not listed (also when it holds exactly our value): it stays theirs.
 */
export interface MergeRecordEntry {
  keyPath: string[]
  sha256: string[]
  original?: UserOriginal
}

export function manifestPath(owner: string): string {
  return `.oac/manifest.${owner}.json`
}

export function emptyManifest(owner: string): Manifest {
  return { version: 1, owner, files: {}, merges: {}, folders: [] }
}

export function hashBytes(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex')
}

/** A hash of a value that ignores key order and formatting (our merge entries as read back). */
export function hashValue(value: PlainValue): string {
  return hashBytes(canonicalJson(value))
}

function canonicalJson(value: PlainValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as PlainValue)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

export function manifestText(manifest: Manifest): string {
  return `${JSON.stringify(canonicalManifest(manifest), null, 2)}\n`
}

/**
 * The manifest in its one order, whatever order its files were found, its merges made and its
 * entries claimed in: records by path, lists sorted, every object's keys in the order of its type.
 * A compile with nothing changed then gives the very same manifest, and writes no file.
 */
export function canonicalManifest(manifest: Manifest): Manifest {
  // Most records come in order already (from the sorted files), and copying 7,000 keys is most of the cost.
  const sortedKeys = <T>(record: Record<string, T>): Record<string, T> => {
    const keys = Object.keys(record)
    if (keys.every((key, i) => i === 0 || (keys[i - 1] as string) < key)) return record
    return Object.fromEntries(keys.sort().map((key) => [key, record[key] as T]))
  }
  const merges: Manifest['merges'] = {}
  for (const [path, record] of Object.entries(sortedKeys(manifest.merges))) merges[path] = canonicalRecord(record)
  return {
    version: 1,
    owner: manifest.owner,
    files: sortedKeys(manifest.files),
    merges,
    folders: [...new Set(manifest.folders)].sort(),
    ...(manifest.harnesses && { harnesses: manifest.harnesses }),
  }
}

/** A merge record in its one order (see canonicalManifest): entries by key path, scaffold paths sorted. */
export function canonicalRecord(record: MergeRecord): MergeRecord {
  const entries = record.entries
    .map(({ keyPath, sha256, original }) => ({ keyPath, sha256: [...new Set(sha256)].sort(), ...(original ? { original } : {}) }))
    .sort((a, b) => comparePaths(a.keyPath, b.keyPath))
  const scaffold = record.scaffold && canonicalScaffold(record.scaffold)
  return {
    format: record.format,
    created: record.created,
    entries,
    ...(record.tablesSeparator === undefined ? {} : { tablesSeparator: record.tablesSeparator }),
    ...(scaffold === undefined ? {} : { scaffold }),
  }
}

function canonicalScaffold({ containers, document, lineEnd, insides }: Scaffold): Scaffold {
  return {
    ...(containers ? { containers: [...containers].sort(comparePaths) } : {}),
    ...(document ? { document: { lead: document.lead, end: document.end } } : {}),
    ...(lineEnd === undefined ? {} : { lineEnd }),
    ...(insides ? { insides: insides.map(({ path, text }) => ({ path, text })).sort((a, b) => comparePaths(a.path, b.path)) } : {}),
  }
}

/** Key paths key by key; a path sorts before the paths inside it (outermost first). */
function comparePaths(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i] as string, b[i] as string]
    if (x !== y) return x < y ? -1 : 1
  }
  return a.length - b.length
}

/** Reads the manifest at `path`, and its text (undefined: none); a missing one is empty, a damaged one is an error (with the fix). */
export async function readManifest(path: string, displayPath: string, owner: string): Promise<{ manifest: Manifest; text?: string; diagnostics: Diagnostic[] }> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { manifest: emptyManifest(owner), diagnostics: [] }
    throw error
  }
  const manifest = parseManifest(text, owner)
  if (manifest) return { manifest, text, diagnostics: [] }
  return {
    manifest: emptyManifest(owner),
    text,
    diagnostics: [
      {
        severity: 'error',
        code: 'manifest-invalid',
        file: displayPath,
        message: `The list of files unplugin-oac wrote for "${owner}" is damaged, so it cannot tell its files from yours; nothing was written.`,
        fix: `Delete ${displayPath} and build again: files identical to what would be generated are taken over, any other file in the way is reported.`,
      },
    ],
  }
}

function parseManifest(text: string, owner: string): Manifest | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!isRecord(value) || value.version !== 1 || value.owner !== owner) return undefined
  const { files, merges, folders, harnesses } = value
  if (!isRecord(files) || !isRecord(merges) || !isStringArray(folders) || (harnesses !== undefined && !isStringArray(harnesses))) return undefined
  const hashes = (record: unknown): record is { sha256: string[] } => isRecord(record) && isStringArray(record.sha256)
  if (!Object.values(files).every(hashes)) return undefined
  const mergeRecord = (record: unknown): record is MergeRecord =>
    isRecord(record) &&
    (record.format === 'json' || record.format === 'toml' || record.format === 'markdown') &&
    typeof record.created === 'boolean' &&
    Array.isArray(record.entries) &&
    record.entries.every((entry) => hashes(entry) && isStringArray((entry as { keyPath?: unknown }).keyPath) && isOriginal((entry as { original?: unknown }).original)) &&
    (record.tablesSeparator === undefined || lineBreaks(record.tablesSeparator)) &&
    (record.scaffold === undefined || isScaffold(record.scaffold))
  if (!Object.values(merges).every(mergeRecord)) return undefined
  return { version: 1, owner, files: files as Manifest['files'], merges: merges as Manifest['merges'], folders, ...(harnesses !== undefined && { harnesses }) }
}

/** Only line breaks: a hand-edited manifest must not make a merge take away anything else. */
function lineBreaks(value: unknown): boolean {
  return typeof value === 'string' && /^[\r\n]*$/.test(value)
}

function isScaffold(value: unknown): boolean {
  if (!isRecord(value)) return false
  const { containers, document, lineEnd, insides } = value
  return (
    (insides === undefined || (Array.isArray(insides) && insides.every((inside) => isRecord(inside) && isStringArray(inside.path) && typeof inside.text === 'string' && /^[ \t\r\n]+$/.test(inside.text)))) &&
    (containers === undefined || (Array.isArray(containers) && containers.every((path) => isStringArray(path) && path.length > 0))) &&
    (document === undefined || (isRecord(document) && lineBreaks(document.lead) && lineBreaks(document.end))) &&
    (lineEnd === undefined || (lineBreaks(lineEnd) && lineEnd !== ''))
  )
}

function isOriginal(value: unknown): boolean {
  return value === undefined || (isRecord(value) && Object.hasOwn(value, 'value') && (value.text === undefined || typeof value.text === 'string'))
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string')
}
