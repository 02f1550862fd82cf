import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { emptyManifest, type Manifest, readManifest } from './manifest.js'

/* Other apps writing into the same target: each has its own manifest, `.oac/manifest.<server>.json`. */

/** The MCP server name of another app whose manifest in the same target lists the path. */
export async function otherOwner(target: string, path: string, owner: string): Promise<string | undefined> {
  return otherManifest(target, owner, (manifest) => Object.hasOwn(manifest.files, path))
}

/** The owner of another app's manifest in the target that `lists` accepts. */
export async function otherManifest(target: string, owner: string, lists: (manifest: Manifest) => boolean): Promise<string | undefined> {
  const names = await readdir(join(target, '.oac')).catch(() => [] as string[])
  for (const name of names) {
    const other = /^manifest\.(.+)\.json$/.exec(name)?.[1]
    if (!other || other === owner) continue
    const { manifest } = await readManifest(join(target, '.oac', name), name, other).catch(() => ({ manifest: emptyManifest(other) }))
    if (lists(manifest)) return other
  }
  return undefined
}
