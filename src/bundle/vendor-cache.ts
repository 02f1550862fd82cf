import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { version as esbuildVersion } from 'esbuild'
import { cacheFolder, writeRecord } from '../cache-folder.js'
import { debugCache } from '../debug.js'
import { settledStamp } from '../file-stamps.js'
import { ownBuild } from '../package-paths.js'

/** Bumped when what a record holds, or how vendor files are built, changes without a new version. */
const FORMAT = 1

interface VendorRecord {
  format: typeof FORMAT
  /** This build of unplugin-oac (ownBuild), esbuild's version and the format. */
  identity: string
  /** What was built: the build's group and modules. */
  key: string
  /** Absolute path -> stamp of each file the build read. */
  inputs: Record<string, string>
  value: unknown
}

/** A group as debug output shows it (a group may join a folder and a name with a NUL). */
const label = (group: string) => group.replaceAll('\0', ' ')

/** What made a record: a record made by another build of unplugin-oac or esbuild is not used. */
const identity = async () => `${await ownBuild()}+esbuild@${esbuildVersion}+${FORMAT}`

/**
 * Vendor builds kept on disk between processes, one record per package or runtime build, in the
 * cache folder of the node_modules that holds the package (cacheFolderOf). A package's vendor files
 * depend on nothing but its installed files (and those of the packages it imports), the modules of
 * it that are imported, esbuild and unplugin-oac, so a compile in a new process (the `oac` command,
 * each one-shot build) takes them from here rather than building them again, which was a sixth of a
 * cold compile of 1,000 tools. A record is used only while every file it names has the stamp (size,
 * modification time, inode) it had, and is written only when all of them had settled. A record that
 * cannot be read or written is a miss, never an error.
 */
export const vendorCache = {
  /** What the build of `group` with `key` gave, if a record of it in `folder` still holds. */
  async read(folder: string, group: string, key: string): Promise<unknown> {
    const file = recordFile(folder, group)
    let record: VendorRecord
    try {
      record = JSON.parse(await readFile(file, 'utf8')) as VendorRecord
    } catch {
      debugCache('vendor %s: no record', label(group))
      return undefined
    }
    const now = Date.now()
    const changed = () => Object.entries(record.inputs).find(([input, stamp]) => settledStamp(input, now) !== stamp)?.[0]
    let stale: string | undefined
    if (record.format !== FORMAT || record.identity !== (await identity())) stale = 'made by another build of unplugin-oac or esbuild'
    else if (record.key !== key) stale = 'made for other modules'
    else if ((stale = changed()) !== undefined) stale = `${stale} changed`
    if (stale !== undefined) {
      debugCache('vendor %s: record not used (%s)', label(group), stale)
      return undefined
    }
    return record.value
  },

  /** Records in `folder` what the build of `group` with `key` gave, from the files `inputs` (absolute). */
  async write(folder: string, group: string, key: string, inputs: readonly string[], value: unknown): Promise<void> {
    const now = Date.now()
    const stamps: Record<string, string> = {}
    for (const input of inputs) {
      const stamp = settledStamp(input, now)
      // A file written moments ago could change again without its stamp showing it.
      if (stamp === undefined) return
      stamps[input] = stamp
    }
    const record: VendorRecord = { format: FORMAT, identity: await identity(), key, inputs: stamps, value }
    try {
      await writeRecord(recordFile(folder, group), record)
    } catch (error) {
      debugCache('vendor %s: record not written (%s)', label(group), (error as Error).message)
    }
  },
}

function recordFile(folder: string, group: string): string {
  return join(folder, `${createHash('sha256').update(group).digest('hex').slice(0, 32)}.json`)
}

/**
 * Where the vendor builds of the package installed at `dir` are kept: `.cache/oac/vendor/` in the
 * node_modules folder that holds it (the outermost, for pnpm's nested layout), or in the package's
 * own node_modules when it is no dependency (unplugin-oac run from a checkout). No node_modules
 * folder is made where there was none.
 */
export function cacheFolderOf(dir: string): string {
  // The folder that holds the node_modules, its separator kept (`/` for a package in /node_modules).
  const installedIn = /^(.*?[\\/])node_modules[\\/]/.exec(dir)?.[1]
  return join(cacheFolder(installedIn ?? dir), 'vendor')
}
