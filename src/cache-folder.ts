import { randomBytes } from 'node:crypto'
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** Where unplugin-oac keeps what it caches for a project: `<root>/node_modules/.cache/oac`, as bundlers do. */
export function cacheFolder(root: string): string {
  return join(root, 'node_modules', '.cache', 'oac')
}

/**
 * Writes a cache record as JSON, whole or not at all: into a temp file beside it, renamed over it
 * (whichever process renames last wins). Throws what failed, with the temp file removed.
 */
export async function writeRecord(file: string, record: unknown): Promise<void> {
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`
  try {
    await mkdir(dirname(file), { recursive: true })
    await writeFile(temp, JSON.stringify(record))
    await rename(temp, file)
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
}
