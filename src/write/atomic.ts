import { closeSync, fstatSync, openSync, renameSync, type Stats, unlinkSync, writeFileSync } from 'node:fs'
import { type FileHandle, open, readdir, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { processAlive } from '../process-alive.js'

const TEMP_NAME = /^\..+\.oac-(\d+)-[0-9a-f]+\.tmp$/
// Lock staging files (see lock.ts): `<lock>.<pid>.<uuid>`.
const STAGING_NAME = /\.lock\.(\d+)\.[0-9a-f-]{36}$/

/** True for the temp files our atomic writes use (watch drivers ignore them). */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name)
}

let tempCount = 0
/** A temp name no other writer uses: this process's id and a count (a tree of thousands of files
 * took a tenth of its write time drawing random names). */
const tempPath = (path: string): string => join(dirname(path), `.${basename(path)}.oac-${process.pid}-${(++tempCount).toString(16)}.tmp`)

const taken = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'EEXIST'

/** Creates a temp file beside `path`, exclusively: a name a killed process with our id left behind is skipped, never reused. */
async function openTemp(path: string, mode: number): Promise<{ temp: string; handle: FileHandle }> {
  for (;;) {
    const temp = tempPath(path)
    try {
      return { temp, handle: await open(temp, 'wx', mode) }
    } catch (error) {
      if (!taken(error)) throw error
    }
  }
}

function openTempSync(path: string, mode: number): { temp: string; fd: number } {
  for (;;) {
    const temp = tempPath(path)
    try {
      return { temp, fd: openSync(temp, 'wx', mode) }
    } catch (error) {
      if (!taken(error)) throw error
    }
  }
}

/**
 * Writes a file so that readers (and a crash at any moment) see either the old content or the
 * new, never a part: the data goes to a temp file in the same folder, is flushed to disk, and is
 * renamed over the target (an atomic replace on one filesystem). For the user's files we merge
 * into, and our manifest.
 */
export async function writeFileAtomic(path: string, data: Buffer, options: { mode: number; exactMode?: boolean }): Promise<Stats> {
  const { temp, handle } = await openTemp(path, options.mode)
  try {
    let stats: Stats
    try {
      await handle.writeFile(data)
      // A user's file keeps its permissions exactly; new files get ours minus the umask.
      if (options.exactMode && process.platform !== 'win32') await handle.chmod(options.mode)
      await handle.sync()
      stats = await handle.stat()
    } finally {
      await handle.close()
    }
    await renameWithRetry(temp, path)
    return stats
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  }
}

/**
 * The same temp-and-rename replace for files we generate whole, without the flush: a build killed at
 * any moment still leaves the old content or the new, never a part; only a power cut could leave a
 * file empty, which the next build writes again (every bundler treats its output so). One fsync per
 * file, and async calls' thread-pool round trips, were most of the write time of a 3,400-file tree;
 * these files are small, so plain sync calls are fastest.
 */
export function replaceFileSync(path: string, data: Buffer, mode: number): Stats {
  const { temp, fd } = openTempSync(path, mode)
  try {
    let stats: Stats
    try {
      writeFileSync(fd, data)
      // Size, modification time, inode and mode survive the rename: the caller's stamp of the file.
      stats = fstatSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSyncWithRetry(temp, path)
    return stats
  } catch (error) {
    try {
      unlinkSync(temp)
    } catch {
      // Already renamed.
    }
    throw error
  }
}

// Windows refuses to replace a file another process has open for a moment (virus scanners, editors).
const RENAME_RETRIES = 10
const retriesRename = (error: unknown, attempt: number): boolean => {
  const code = (error as NodeJS.ErrnoException).code
  return process.platform === 'win32' && attempt < RENAME_RETRIES && (code === 'EPERM' || code === 'EACCES' || code === 'EBUSY')
}

async function renameWithRetry(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to)
      return
    } catch (error) {
      if (!retriesRename(error, attempt)) throw error
      await new Promise((done) => setTimeout(done, 20 * (attempt + 1)))
    }
  }
}

function renameSyncWithRetry(from: string, to: string): void {
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(from, to)
      return
    } catch (error) {
      if (!retriesRename(error, attempt)) throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 * (attempt + 1))
    }
  }
}

/** Flushes a folder's entries (the renames) to disk. Windows cannot open folders; it needs no flush. */
export async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await open(folder, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Removes temp and lock staging files that a killed build left in `folder` (their process is gone). */
export async function sweepStaleTemps(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[])
  for (const name of names) {
    const pid = (TEMP_NAME.exec(name) ?? STAGING_NAME.exec(name))?.[1]
    if (pid && !processAlive(Number(pid))) await unlink(join(folder, name)).catch(() => undefined)
  }
}
