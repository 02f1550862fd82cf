import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { Generated } from '../api.js'
import { hasErrors, OacError } from '../diagnostics.js'
import type { MergeFile } from '../emit/types.js'
import { mergeJsonText, mergeTomlText, type WriteReport, writeOutputs } from '../write/index.js'
import { isInside, posixRelative } from './session.js'

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

function merge(text: string | undefined, file: MergeFile): string {
  // Entries we no longer emit are removed by write/ when it takes the written tree over (see reconcileTree).
  return file.format === 'json' ? mergeJsonText(text, file, []) : mergeTomlText(text, file, [])
}

/**
 * The agent tree as assets of a bundle written to `outDir` (the target lies inside it). A merge file
 * (`.mcp.json`, an agent TOML) is merged into the bundle's asset of that name when there is one (say,
 * copied by a copy plugin), else into the file already on disk (Vite's publicDir copy, or the user's
 * own), so the user's entries survive. A file that cannot be parsed throws OacError naming it.
 */
export async function treeAssets(
  generated: Generated,
  target: string,
  outDir: string,
  bundled: (fileName: string) => string | undefined,
): Promise<TreeAsset[]> {
  return Promise.all(
    generated.files.map(async (file): Promise<TreeAsset> => {
      const absolute = join(target, file.path)
      const fileName = posixRelative(outDir, absolute)
      const inBundle = bundled(fileName)
      if (file.kind === 'owned') return { fileName, source: file.content, replacesBundled: inBundle !== undefined }
      return { fileName, source: merge(inBundle ?? (await readIfExists(absolute)), file), replacesBundled: inBundle !== undefined }
    }),
  )
}

/** Writes the agent tree into the target with write/ (only changed files; stale owned files removed); throws OacError on errors. */
export async function writeTree(generated: Generated, target: string, force: boolean): Promise<WriteReport> {
  const report = await writeOutputs(generated.files, { target, mode: 'write', force, owner: generated.plan.serverName })
  if (hasErrors(report.diagnostics)) throw new OacError(report.diagnostics)
  return report
}

/**
 * After the bundler has written the tree's assets: write/ takes them over (the files already hold
 * their bytes, so only its manifest is written), removes the files of tools and agents we no longer
 * generate, and our entries no longer emitted; then the folders that leaves empty go too.
 */
export async function reconcileTree(generated: Generated, target: string, force: boolean): Promise<WriteReport> {
  const report = await writeTree(generated, target, force)
  for (const path of report.removed) {
    for (let folder = dirname(join(target, path)); folder !== target && isInside(folder, target); folder = dirname(folder)) {
      const removed = await rmdir(folder).then(
        () => true,
        () => false,
      )
      if (!removed) break
    }
  }
  return report
}

/** esbuild writes no assets of plugins: the tree's assets are written here, each only when its bytes differ. */
export async function writeAssets(assets: readonly TreeAsset[], outDir: string): Promise<void> {
  await Promise.all(
    assets.map(async (asset) => {
      const path = join(outDir, asset.fileName)
      if ((await readIfExists(path)) === asset.source) return
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, asset.source)
    }),
  )
}
