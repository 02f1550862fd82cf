import { join } from 'node:path'

/** Where unplugin-oac keeps what it caches for a project: `<root>/node_modules/.cache/oac`, as bundlers do. */
export function cacheFolder(root: string): string {
  return join(root, 'node_modules', '.cache', 'oac')
}
