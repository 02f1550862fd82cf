import { readFile } from 'node:fs/promises'
import { isAbsolute, join, relative, sep } from 'node:path'
import type { Diagnostic } from '../diagnostics.js'
import type { TargetMemo } from './known-files.js'
import type { Manifest } from './manifest.js'

/* What the planning of a write shares: the options, the operations it plans, and small helpers. */

/** `write` changes files; `check` and `dry-run` write nothing and report what would change. */
export type WriteMode = 'write' | 'check' | 'dry-run'

export interface WriteReport {
  /** Paths (relative to the target) written, or that would be written. */
  written: string[]
  unchanged: string[]
  /** Paths removed (files we generated before and no longer do), or that would be removed. */
  removed: string[]
  diagnostics: Diagnostic[]
}

export interface WriteOptions {
  /** Absolute path of the folder the tree goes into. */
  target: string
  mode: WriteMode
  /** Overwrite user files in the way of owned files, and our files or entries edited by hand. */
  force: boolean
  /** Who is writing: the MCP server name, so apps sharing a target keep separate manifests. */
  owner: string
  /** The harnesses the tree is for, recorded in the manifest. */
  harnesses?: readonly string[]
}

export type Operation =
  // `userFile`: a file that was there before (we merge into it): it keeps its permissions exactly and is flushed to disk.
  // `sha256`: an owned file's content hash, taken when planned, for the rebuild memo (known-files.ts).
  // `mergeInputs`: what a merge file was made from, for the rebuild memo (known-files.ts).
  | { kind: 'write'; path: string; data: Buffer; mode: number; userFile: boolean; sha256?: string; realPath?: string; mergeInputs?: string }
  | { kind: 'chmod'; path: string; mode: number }
  | { kind: 'remove'; path: string }

/** Everything a write will do, planned and checked before anything is written. */
export interface WritePlan {
  operations: Operation[]
  unchanged: string[]
  /** Merge files found up to date: their absolute path, what they were made from, their stamp when read. */
  settledMerges: Array<{ path: string; inputs: string; stamp: string }>
  /** What this process left in the target last time (known-files.ts). */
  memo: TargetMemo
  diagnostics: Diagnostic[]
  next: Manifest
}

export const FILE_MODE = 0o666
export const EXECUTABLE_MODE = 0o777
export const canChmod = process.platform !== 'win32'

/** A path to show people: relative to the working directory when inside it, else absolute. */
export function displayPath(target: string, path: string): string {
  const absolute = join(target, path)
  const fromCwd = relative(process.cwd(), absolute)
  return fromCwd === '' || fromCwd.startsWith('..') || isAbsolute(fromCwd) ? absolute : fromCwd.split(sep).join('/')
}

export function hasOwn<T>(record: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined
}

/** The file's bytes, undefined when it does not exist, 'folder' when a folder is in the way. */
export async function readExisting(path: string): Promise<Buffer | 'folder' | undefined> {
  try {
    return await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return undefined
    if (code === 'EISDIR') return 'folder'
    throw error
  }
}
