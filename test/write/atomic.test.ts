import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { replaceFileSync, writeFileAtomic } from '../../src/write/atomic.js'
import { tempDir } from '../util/temp.js'

// Temp names are this process's id and a count, so a killed process that had our id may have left
// files with the names we are about to use (this file's module starts counting at 1).
it('skips a temp name a killed process with our id left behind, and leaves that file alone', async () => {
  const dir = await tempDir()
  const leftovers = [1, 2, 3].map((count) => `.file.txt.oac-${process.pid}-${count.toString(16)}.tmp`)
  for (const name of leftovers) await writeFile(join(dir, name), `left by ${name}`)
  replaceFileSync(join(dir, 'file.txt'), Buffer.from('generated'), 0o666)
  await writeFileAtomic(join(dir, 'file.txt'), Buffer.from('merged'), { mode: 0o666 })
  expect(await readFile(join(dir, 'file.txt'), 'utf8')).toBe('merged')
  for (const name of leftovers) expect(await readFile(join(dir, name), 'utf8')).toBe(`left by ${name}`)
  expect((await readdir(dir)).sort()).toEqual(['file.txt', ...leftovers].sort())
})
