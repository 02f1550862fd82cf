import { constants } from 'node:fs'
import { access, readFile, realpath } from 'node:fs/promises'
import { delimiter, dirname, join } from 'node:path'

/* Finding a harness CLI (its model-free commands run through src/bounded-run.ts). */

/** The first executable `bin` in the folders of `path` (a PATH value), as a shell would find it. */
export async function findBin(bin: string, path: string | undefined): Promise<string | undefined> {
  for (const folder of (path ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(folder, bin)
    const found = await access(candidate, constants.X_OK).then(
      () => true,
      () => false,
    )
    if (found) return candidate
  }
  return undefined
}

/** The version of npm package `name` a bin belongs to (its symlink followed up to the package's package.json), if it is one. */
export async function packageVersion(bin: string, name: string): Promise<string | undefined> {
  let folder = dirname(await realpath(bin).catch(() => bin))
  for (;;) {
    const manifest = await readFile(join(folder, 'package.json'), 'utf8').then(
      (text) => JSON.parse(text) as { name?: string; version?: string },
      () => undefined,
    )
    if (manifest?.name === name) return manifest.version
    if (dirname(folder) === folder) return undefined
    folder = dirname(folder)
  }
}
