import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { emptyManifest, type Manifest, manifestPath, readManifest } from './manifest.js'

/* Other apps writing into the same target: each has its own manifest, `.oac/manifest.<server>.json`. */

/** The MCP server name of another app whose manifest in the same target lists the path. */
export async function otherOwner(target: string, path: string, owner: string): Promise<string | undefined> {
  return otherManifest(target, owner, (manifest) => Object.hasOwn(manifest.files, path))
}

/** The server names of the apps whose manifests are in the target, sorted. */
export async function owners(target: string): Promise<string[]> {
  const names = await readdir(join(target, '.oac')).catch(() => [] as string[])
  return names.flatMap((name) => /^manifest\.(.+)\.json$/.exec(name)?.[1] ?? []).sort()
}

/** The owner of another app's manifest in the target that `lists` accepts. */
export async function otherManifest(target: string, owner: string, lists: (manifest: Manifest) => boolean): Promise<string | undefined> {
  for (const other of await owners(target)) {
    if (other === owner) continue
    const { manifest } = await readManifest(join(target, manifestPath(other)), manifestPath(other), other).catch(() => ({ manifest: emptyManifest(other) }))
    if (lists(manifest)) return other
  }
  return undefined
}
