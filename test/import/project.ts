import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { readFrontmatter } from '../../src/import/source-text.js'
import { tempDir } from '../util/temp.js'

/** A project in a new temp folder holding `files` (path relative to it → text): what an import reads. */
export async function project(prefix: string, files: Record<string, string>): Promise<string> {
  const root = await tempDir(prefix)
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), text)
  }
  return root
}

/** A Markdown file by meaning: its frontmatter's values and its trimmed body. */
export function meaning(text: string): { data: Record<string, unknown>; body: string } {
  const { data, body } = readFrontmatter(text, 'x')
  return { data, body: body.trim() }
}

/**
 * Takes the manifest compile wrote out of a compiled tree (`.oac/`), which tells the import the files
 * are compile's: what is left reads as files a person wrote in the harnesses' formats.
 */
export async function withoutManifest(root: string): Promise<void> {
  await rm(join(root, '.oac'), { recursive: true })
}
