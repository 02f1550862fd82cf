import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Generated } from '../api.js'
import { hasErrors, OacError } from '../diagnostics.js'
import type { MergeEntry, MergeFile } from '../emit/types.js'
import { mergeJsonText, mergeTomlText, type WriteReport, writeOutputs } from '../write/index.js'
import { posixRelative } from './session.js'

/** One file of the agent tree as a bundle asset, named relative to the output folder. */
export interface TreeAsset {
  fileName: string
  source: string
  /** The file's path relative to the target. */
  path: string
  /** True when the bundle already holds an asset of that name, which `source` replaces (a merge into it). */
  replacesBundled: boolean
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/** Remembers the entries we merged into each file, so entries we stop emitting are removed next time. */
export class MergeMemory {
  private readonly entries = new Map<string, MergeEntry[]>()

  previous(file: string): MergeEntry[] {
    return this.entries.get(file) ?? []
  }

  remember(file: string, entries: MergeEntry[]): void {
    this.entries.set(file, entries)
  }
}

function merge(text: string | undefined, file: MergeFile, previous: MergeEntry[]): string {
  return file.format === 'json' ? mergeJsonText(text, file, previous) : mergeTomlText(text, file, previous)
}

/**
 * The agent tree as assets of a bundle written to `outDir` (the target lies inside it). A merge file
 * (`.mcp.json`, an agent TOML) is merged into the bundle's asset of that name when there is one (say,
 * copied from Vite's publicDir), else into the file already on disk, so the user's own entries survive.
 * A file we cannot parse fails the build (OacError from write/), leaving it untouched.
 */
export async function treeAssets(
  generated: Generated,
  target: string,
  outDir: string,
  bundled: (fileName: string) => string | undefined,
  memory: MergeMemory,
): Promise<TreeAsset[]> {
  return Promise.all(
    generated.files.map(async (file): Promise<TreeAsset> => {
      const absolute = join(target, file.path)
      const fileName = posixRelative(outDir, absolute)
      if (file.kind === 'owned') return { fileName, source: file.content, path: file.path, replacesBundled: bundled(fileName) !== undefined }
      const inBundle = bundled(fileName)
      const source = merge(inBundle ?? (await readIfExists(absolute)), file, memory.previous(absolute))
      memory.remember(absolute, file.entries)
      return { fileName, source, path: file.path, replacesBundled: inBundle !== undefined }
    }),
  )
}

/** Writes the agent tree into a target outside the output folder (only changed files; stale owned files removed). */
export async function writeTree(generated: Generated, target: string, force: boolean): Promise<WriteReport> {
  const report = await writeOutputs(generated.files, { target, mode: 'write', force, owner: generated.plan.serverName })
  if (hasErrors(report.diagnostics)) throw new OacError(report.diagnostics)
  return report
}
