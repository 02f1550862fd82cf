import { cp, symlink } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { tempDir } from './temp.js'

export const repoRoot = resolve(import.meta.dirname, '../..')

/**
 * Copies a project folder (a fixture, or the playground) into a fresh temp folder outside the repo,
 * with the repo's node_modules linked in so its bare imports (zod, TypeBox) resolve as in a real project.
 * The folder is removed as tempDir's are.
 */
export async function copyProject(from: string, prefix = 'oac-project-'): Promise<string> {
  const dir = await tempDir(prefix)
  await cp(from, dir, { recursive: true, filter: (src) => !/[\\/](node_modules|dist)$/.test(src) })
  await symlink(join(repoRoot, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}
