import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Generated } from '../api.js'
import { hasErrors, OacError } from '../diagnostics.js'
import type { MergeFile } from '../emit/types.js'
import { writeTarget } from '../target.js'
import { mergeJsonText, mergeMarkdownText, mergeTomlText, type WriteReport } from '../write/index.js'
import { posixRelative } from './paths.js'

/** One file of the agent tree as a bundle asset, named relative to the output folder. */
export interface TreeAsset {
  fileName: string
  source: string
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

/** An in-memory merge of our entries (write/ removes entries we no longer emit when it writes). */
function merge(text: string | undefined, file: MergeFile): string {
  if (file.format === 'markdown') return mergeMarkdownText(text, file, [])
  return file.format === 'json' ? mergeJsonText(text, file, []) : mergeTomlText(text, file, [])
}

/**
 * The agent tree as assets of a bundle written to `outDir` (the target lies inside it).
 *
 * When the bundle goes to disk (`writeFirst`), write/ writes the tree first, with every check it makes
 * (user files in the way, hand edits, unparsable files; any error fails the build before anything is
 * written), its manifest, and the removal of files no longer generated; the assets then carry the
 * same bytes, so the bundler's own write changes nothing. Without a disk write (`write: false`) the
 * merges happen in memory only.
 *
 * A merge file (`.mcp.json`, an agent TOML) is merged into the bundle's asset of that name when there
 * is one (say, from a copy plugin), else into the file on disk (Vite's publicDir copy, or the user's
 * own), so the user's entries survive.
 */
export async function treeAssets(
  generated: Generated,
  target: string,
  outDir: string,
  bundled: (fileName: string) => string | undefined,
  options: { writeFirst: boolean; force: boolean },
): Promise<{ assets: TreeAsset[]; report?: WriteReport }> {
  const report = options.writeFirst ? await writeTree(generated, target, options.force) : undefined
  const assets = await Promise.all(
    generated.files.map(async (file): Promise<TreeAsset> => {
      const absolute = join(target, file.path)
      const fileName = posixRelative(outDir, absolute)
      const inBundle = bundled(fileName)
      const replacesBundled = inBundle !== undefined
      if (file.kind === 'owned') return { fileName, source: file.content, replacesBundled }
      if (inBundle === undefined && report) return { fileName, source: await readFile(absolute, 'utf8'), replacesBundled }
      return { fileName, source: merge(inBundle ?? (await readIfExists(absolute)), file), replacesBundled }
    }),
  )
  return report ? { assets, report } : { assets }
}

/** Writes the agent tree into the target with write/ (only changed files; stale owned files removed), with the target's warnings and notes; throws OacError on errors. */
export async function writeTree(generated: Generated, target: string, force: boolean): Promise<WriteReport> {
  const report = await writeTarget(generated.files, generated.plan, { target, mode: 'write', force, owner: generated.plan.serverName })
  if (hasErrors(report.diagnostics)) throw new OacError(report.diagnostics)
  return report
}
