import { randomUUID } from 'node:crypto'
import { link, mkdir, readFile, rmdir, stat, unlink, writeFile } from 'node:fs/promises'
import { hostname } from 'node:os'
import { dirname } from 'node:path'
import { OacError } from '../diagnostics.js'
import { processAlive } from '../process-alive.js'

/**
 * A lock file shared by every process that merges into the same file (two apps of a monorepo
 * writing one `.mcp.json`): read-merge-write is not atomic, so without mutual exclusion one
 * process's entry would overwrite the other's. Optimistic re-read-and-compare cannot close the
 * window between the last check and the rename, so this is a lock, created atomically.
 * A lock whose process is gone (same host) is broken at once; on another host (shared folders)
 * only after `staleMs`.
 */
export interface LockOptions {
  /** Give up waiting after this long (default 60 s). */
  timeoutMs?: number
  /** A lock from another host older than this is considered abandoned (default 5 min). */
  staleMs?: number
}

interface LockInfo {
  pid: number
  host: string
  token: string
}

export type ReleaseLock = () => Promise<void>

export async function acquireLock(lockPath: string, options: LockOptions = {}): Promise<ReleaseLock> {
  const timeoutMs = options.timeoutMs ?? 60_000
  const staleMs = options.staleMs ?? 300_000
  const info: LockInfo = { pid: process.pid, host: hostname(), token: randomUUID() }
  const content = JSON.stringify(info)
  const started = Date.now()
  for (let attempt = 0; ; attempt++) {
    // Each attempt, as another process may remove the empty lock folder when it finishes: also while
    // this mkdir runs, between its making `.oac` and `.oac/locks` (ENOENT), which the next attempt redoes.
    const folder = await mkdir(dirname(lockPath), { recursive: true }).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return false
        throw error
      },
    )
    if (folder && (await tryCreate(lockPath, content))) {
      return async () => {
        // Only our own lock is removed, never one another process took after breaking ours.
        if ((await readFile(lockPath, 'utf8').catch(() => '')) === content) await unlink(lockPath).catch(() => undefined)
      }
    }
    const holder = await readHolder(lockPath)
    if (holder && isStale(holder, staleMs)) {
      await breakLock(lockPath, holder.raw)
      continue
    }
    if (Date.now() - started > timeoutMs) {
      const who = holder?.info ? `process ${holder.info.pid} on ${holder.info.host}` : 'another process'
      throw new OacError([
        {
          severity: 'error',
          code: 'write-locked',
          file: lockPath,
          message: `Timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${who} to finish writing.`,
          fix: `If no other build is running, delete ${lockPath} and build again.`,
        },
      ])
    }
    await new Promise((done) => setTimeout(done, Math.min(100, 2 + attempt * 2) + Math.random() * 10))
  }
}

/** Creates the lock with its content in one step: written to a private file, then hard-linked
 * into place (link fails if the lock exists), so no reader ever sees an empty lock. */
async function tryCreate(lockPath: string, content: string): Promise<boolean> {
  const staging = `${lockPath}.${process.pid}.${randomUUID()}`
  try {
    await writeFile(staging, content, { flag: 'wx' })
    await link(staging, lockPath)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EEXIST' || code === 'ENOENT') return false
    throw error
  } finally {
    await unlink(staging).catch(() => undefined)
  }
}

/** Removes the lock folder (and `.oac`) when no lock or manifest is left in them. */
export async function removeEmptyLockFolder(lockFolder: string): Promise<void> {
  await rmdir(lockFolder).catch(() => undefined)
  await rmdir(dirname(lockFolder)).catch(() => undefined)
}

interface Holder {
  raw: string
  info?: LockInfo
  ageMs: number
}

async function readHolder(lockPath: string): Promise<Holder | undefined> {
  try {
    const [raw, stats] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)])
    return { raw, info: parseInfo(raw), ageMs: Date.now() - stats.mtimeMs }
  } catch {
    return undefined // released meanwhile: try again
  }
}

function parseInfo(raw: string): LockInfo | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockInfo>
    return typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.token === 'string'
      ? { pid: value.pid, host: value.host, token: value.token }
      : undefined
  } catch {
    return undefined
  }
}

function isStale(holder: Holder, staleMs: number): boolean {
  if (holder.info && holder.info.host === hostname()) return !processAlive(holder.info.pid)
  return holder.ageMs > staleMs
}

/** Removes an abandoned lock, unless it changed since we judged it (someone else broke it and took it). */
async function breakLock(lockPath: string, judged: string): Promise<void> {
  const current = await readFile(lockPath, 'utf8').catch(() => undefined)
  if (current === judged) await unlink(lockPath).catch(() => undefined)
}
