import { createHash } from 'node:crypto'
import { readdir, readFile, stat, unlink, utimes } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { cacheFolder, writeRecord } from '../cache-folder.js'
import type { Diagnostic } from '../diagnostics.js'
import { ownBuild } from '../package-paths.js'
import { manifestPath } from '../write/manifest.js'
import { debugCache } from '../debug.js'
import type { OacPluginOptions } from './options.js'

/**
 * The build cache: a record, per (root, registry, config, target, serverName), of the last compile that
 * a build wrote into its target, so the next build with the same inputs compiles nothing. Like Vite's
 * dependency-optimizer metadata, it is checked by content: a hit needs the same options, unplugin-oac
 * build and Node major, the same bytes in every local file the compile read, in the lockfile(s) and
 * the root package.json / tsconfig.json, and the target's generated files exactly as that build left
 * them. Anything else compiles (and the write then handles hand edits and merges as always).
 */

/** What identifies one build's tree; `root` and `target` are absolute. */
export interface CacheKey {
  root: string
  target: string
  options: OacPluginOptions
}

/** What a build the cache serves needs of the compile: everything but the tree, which is on disk already. */
export interface CachedBuild {
  /** The code of `virtual:oac`. */
  manifestModule: string
  /** Every local file the compile read (absolute, sorted). */
  watchFiles: string[]
  /** The generated files, relative to the target. */
  outputs: string[]
  /** Warnings of the compile, reported again. */
  warnings: Diagnostic[]
  /** Warnings of the write into the target, reported again. */
  writeWarnings: Diagnostic[]
}

const FORMAT = 1
/** Records kept per cache folder: the least recently used beyond this are removed. */
const KEEP_RECORDS = 64
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lock', 'bun.lockb']
const PROJECT_FILES = ['package.json', 'tsconfig.json']
const MISSING = 'missing'
const NODE_MAJOR = Number(process.versions.node.split('.')[0])

type Hashes = Record<string, string>

export interface CacheRecord extends CachedBuild {
  format: typeof FORMAT
  /** unplugin-oac's version and the build of it (see ownBuild). */
  plugin: string
  node: number
  /** The options, canonical, the root and target included. */
  options: string
  /** Absolute path -> sha256 of each watch file. */
  inputs: Hashes
  /** Absolute path -> sha256 of the lockfiles and root project files. */
  project: Hashes
  /** Path relative to the target -> sha256 (and the executable bit) of each file the write left there. */
  tree: Hashes
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex')

/** The options as one string, keys sorted; `cache` itself is left out (only `cache: true` reads records). */
function canonicalOptions(key: CacheKey): string {
  const { cache: _cache, ...options } = key.options
  const sorted = Object.entries(options).sort(([a], [b]) => (a < b ? -1 : 1))
  return JSON.stringify({ root: key.root, target: key.target, options: sorted })
}

/** The record file of a key: one per (root, registry, config, target, serverName). */
export function recordFile(key: CacheKey): string {
  const { registry, config, serverName } = key.options
  const name = sha256(JSON.stringify([key.root, registry, config ?? null, key.target, serverName ?? null])).slice(0, 24)
  return join(cacheFolder(key.root), `build-${name}.json`)
}

async function hashFile(path: string, withMode: boolean): Promise<string> {
  try {
    const [data, info] = await Promise.all([readFile(path), withMode ? stat(path) : undefined])
    const executable = info && process.platform !== 'win32' && (info.mode & 0o100) !== 0
    return executable ? `${sha256(data)}+x` : sha256(data)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? MISSING : `unreadable: ${(error as NodeJS.ErrnoException).code}`
  }
}

async function hashFiles(paths: readonly string[], base = '', withMode = false): Promise<Hashes> {
  const hashes = await Promise.all(paths.map((path) => hashFile(join(base, path), withMode)))
  return Object.fromEntries(paths.map((path, index) => [path, hashes[index]!]))
}

/** The lockfiles of the nearest folder, from the root upwards, that has any (as Vite's optimizer looks them up). */
async function lockfiles(root: string): Promise<string[]> {
  for (let dir = root; ; dir = dirname(dir)) {
    const found = (await Promise.all(LOCKFILES.map(async (name) => ((await hashFile(join(dir, name), false)) === MISSING ? undefined : join(dir, name))))).filter(
      (path): path is string => path !== undefined,
    )
    if (found.length > 0 || dirname(dir) === dir) return found
  }
}

async function projectHashes(root: string): Promise<Hashes> {
  return hashFiles([...(await lockfiles(root)), ...PROJECT_FILES.map((name) => join(root, name))])
}

/** A path whose hash differs between the two (or is in only one), for the debug output. */
function firstDifference(now: Hashes, recorded: Hashes): string | undefined {
  const keys = [...new Set([...Object.keys(recorded), ...Object.keys(now)])]
  return keys.find((key) => now[key] !== recorded[key])
}

const isString = (value: unknown): value is string => typeof value === 'string'
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString)
const isHashes = (value: unknown): value is Hashes => isObject(value) && Object.values(value).every(isString)

function isDiagnostic(value: unknown): value is Diagnostic {
  if (!isObject(value)) return false
  const { severity, code, message, fix, file, line, column } = value
  return (
    (severity === 'warning' || severity === 'error' || severity === 'note') &&
    isString(code) &&
    isString(message) &&
    [fix, file].every((field) => field === undefined || isString(field)) &&
    [line, column].every((field) => field === undefined || typeof field === 'number')
  )
}

/** A record as this version writes it; anything else (another format, a damaged file) is ignored. */
function isRecord(value: unknown): value is CacheRecord {
  if (!isObject(value)) return false
  const record = value as Partial<Record<keyof CacheRecord, unknown>>
  return (
    record.format === FORMAT &&
    isString(record.plugin) &&
    typeof record.node === 'number' &&
    isString(record.options) &&
    isString(record.manifestModule) &&
    isStringArray(record.watchFiles) &&
    isStringArray(record.outputs) &&
    Array.isArray(record.warnings) &&
    record.warnings.every(isDiagnostic) &&
    Array.isArray(record.writeWarnings) &&
    record.writeWarnings.every(isDiagnostic) &&
    isHashes(record.inputs) &&
    isHashes(record.project) &&
    isHashes(record.tree)
  )
}

/** The record of `key`, if there is one this plugin build and Node version wrote for these options. */
export async function readRecord(key: CacheKey): Promise<CacheRecord | undefined> {
  let record: unknown
  try {
    record = JSON.parse(await readFile(recordFile(key), 'utf8'))
  } catch {
    debugCache('miss for %s: no record (%s)', key.target, recordFile(key))
    return undefined
  }
  const problem = !isRecord(record)
    ? 'the record is of another format or damaged'
    : record.node !== NODE_MAJOR
      ? `it was written under Node ${record.node}`
      : record.options !== canonicalOptions(key)
        ? 'the options differ'
        : record.plugin !== (await ownBuild())
          ? 'another build of unplugin-oac wrote it'
          : undefined
  if (problem === undefined) return record as CacheRecord
  debugCache('miss for %s: %s', key.target, problem)
  return undefined
}

/** The build a record describes, if every file it depends on is as it was; else undefined. */
export async function currentBuild(key: CacheKey, record: CacheRecord): Promise<CachedBuild | undefined> {
  const [inputs, project, tree] = await Promise.all([
    hashFiles(Object.keys(record.inputs)),
    projectHashes(key.root),
    hashFiles(Object.keys(record.tree), key.target, true),
  ])
  const treeChange = firstDifference(tree, record.tree)
  const changed = firstDifference(inputs, record.inputs) ?? firstDifference(project, record.project) ?? (treeChange && join(key.target, treeChange))
  if (changed !== undefined) {
    debugCache('miss for %s: %s changed since the recorded build', key.target, changed)
    return undefined
  }
  debugCache('hit for %s: nothing changed since the recorded build, so nothing compiles', key.target)
  // Marks the record used, for pruneRecords.
  const now = new Date()
  await utimes(recordFile(key), now, now).catch(() => undefined)
  const { manifestModule, watchFiles, outputs, warnings, writeWarnings } = record
  return { manifestModule, watchFiles, outputs, warnings, writeWarnings }
}

/** What a build that wrote its tree tells the cache beside the build itself. */
export interface WrittenTree {
  /** The MCP server name, which names the write's manifest in the target. */
  owner: string
  /** The generated content of each owned file (relative path -> text). */
  owned: ReadonlyMap<string, string>
  /** Whether the watch files are still as the compile read them; asked once their contents are hashed. */
  inputsUnchanged: () => Promise<boolean>
}

/**
 * Records a build that wrote its tree into `key.target`. Nothing is recorded when an input changed
 * since the compile, or an owned file on disk is not what this build generated (another build wrote
 * there meanwhile). Failures are ignored: without a record the next build compiles.
 */
export async function writeCachedBuild(key: CacheKey, build: CachedBuild, written: WrittenTree): Promise<void> {
  const file = recordFile(key)
  try {
    const treeFiles = [...build.outputs, manifestPath(written.owner)]
    const [plugin, inputs, project, tree] = await Promise.all([
      ownBuild(),
      hashFiles(build.watchFiles),
      projectHashes(key.root),
      hashFiles(treeFiles, key.target, true),
    ])
    if (!(await written.inputsUnchanged()) || Object.values(tree).includes(MISSING)) {
      debugCache('not recorded for %s: an input changed during the build, or a generated file is missing', key.target)
      return
    }
    for (const [path, content] of written.owned) {
      if (tree[path]?.replace(/\+x$/, '') !== sha256(content)) {
        debugCache('not recorded for %s: %s is not what this build generated (another build wrote there)', key.target, path)
        return
      }
    }
    const record: CacheRecord = { format: FORMAT, plugin, node: NODE_MAJOR, options: canonicalOptions(key), ...build, inputs, project, tree }
    await writeRecord(file, record)
    debugCache('recorded the build into %s (%s)', key.target, file)
    await pruneRecords(dirname(file))
  } catch {
    // No record: the next build compiles.
  }
}

/** Keeps the folder to the KEEP_RECORDS most recently used records (targets come and go). */
async function pruneRecords(folder: string): Promise<void> {
  const names = (await readdir(folder)).filter((name) => name.startsWith('build-') && name.endsWith('.json'))
  if (names.length <= KEEP_RECORDS) return
  const used = await Promise.all(names.map(async (name) => ({ name, mtime: (await stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0 })))
  used.sort((a, b) => b.mtime - a.mtime)
  await Promise.all(used.slice(KEEP_RECORDS).map(({ name }) => unlink(join(folder, name)).catch(() => undefined)))
}
