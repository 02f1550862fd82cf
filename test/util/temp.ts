import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TestRunner } from 'vitest'

/** Folders made outside a test (in beforeAll, or while a test file loads), removed after the file's tests. */
const fileFolders = new Set<string>()

/** Removes a folder and everything in it; a folder already gone is fine. */
export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true })
}

/**
 * A fresh folder `<os.tmpdir()>/<prefix>XXXXXX`, removed when no longer needed, whether the tests passed
 * or failed: made inside a test (or its beforeEach/afterEach), when that test finishes; made in beforeAll
 * or at a file's top level, after the file's last test (test/setup.ts).
 */
export async function tempDir(prefix = 'oac-'): Promise<string> {
  // Taken before the await, so the folder goes with the test that asked for it.
  const test = TestRunner.getCurrentTest()
  const dir = await mkdtemp(join(tmpdir(), prefix))
  if (test) test.context.onTestFinished(() => removeDir(dir))
  else fileFolders.add(dir)
  return dir
}

/** Removes the folders made outside any test of this file (test/setup.ts runs it after the file's tests). */
export async function removeFileFolders(): Promise<void> {
  const dirs = [...fileFolders]
  fileFolders.clear()
  await Promise.all(dirs.map(removeDir))
}
