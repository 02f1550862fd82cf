import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MergeFile } from '../../src/emit/types.js'
import { writeOutputs } from '../../src/write/index.js'

/*
 * The marked block of a user's Markdown file (AGENTS.md): created with the file when there is none,
 * updated in place, taken out giving back the user's exact bytes, and recorded so that a second
 * compile writes nothing.
 */

let target: string
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), 'oac-markdown-merge-'))
})
afterEach(async () => {
  await rm(target, { recursive: true, force: true })
})

const file = (text?: string): MergeFile => ({ kind: 'merge', path: 'AGENTS.md', format: 'markdown', entries: text === undefined ? [] : [{ keyPath: ['oac-tools'], value: text }] })
const write = (text?: string, force = false) => writeOutputs([file(text)], { target, mode: 'write', force, owner: 'oac-tools' })
const agents = () => readFile(join(target, 'AGENTS.md'), 'utf8')

describe('a marked block in a Markdown file', () => {
  it('creates the file when there is none, writes nothing the second time, and removes the file it made', async () => {
    expect((await write('## house-style\n\nAnswer in short sentences.')).written).toEqual(['AGENTS.md'])
    expect(await agents()).toBe('<!-- oac:begin oac-tools -->\n## house-style\n\nAnswer in short sentences.\n<!-- oac:end oac-tools -->\n')
    const again = await write('## house-style\n\nAnswer in short sentences.')
    expect(again.written).toEqual([])
    expect(again.unchanged).toContain('AGENTS.md')
    const manifest = JSON.parse(await readFile(join(target, '.oac/manifest.oac-tools.json'), 'utf8'))
    expect(manifest.merges['AGENTS.md']).toMatchObject({ format: 'markdown', created: true, entries: [{ keyPath: ['oac-tools'] }] })
    expect((await write()).removed).toEqual(['AGENTS.md'])
    expect(existsSync(join(target, 'AGENTS.md'))).toBe(false)
  })

  it.each([
    ['with a final line break', '# Ours\n\nKeep it short.\n'],
    ['without a final line break', '# Ours\n\nKeep it short.'],
    ['with CRLF line breaks', '# Ours\r\n\r\nKeep it short.\r\n'],
    ['with a BOM', '\uFEFF# Ours\n\nKeep it short.\n'],
    ['holding a heading and a line that look like our markers', '# <!-- oac:begin oac-tools -->\n<!-- oac:begin oac-tools -->\n<!-- oac:end other -->\ntext'],
    ['empty', ''],
  ])("appends the block to the user's file %s, and taking it out gives back their bytes", async (_, original) => {
    await writeFile(join(target, 'AGENTS.md'), original)
    await write('Rule one.')
    const merged = await agents()
    expect(merged.startsWith(original)).toBe(true)
    const eol = original.includes('\r\n') ? '\r\n' : '\n'
    expect(merged.endsWith(`<!-- oac:begin oac-tools -->${eol}Rule one.${eol}<!-- oac:end oac-tools -->${eol}`)).toBe(true)
    expect((await write()).written).toEqual(['AGENTS.md'])
    expect(await readFile(join(target, 'AGENTS.md'), 'utf8')).toBe(original)
  })

  it('updates the block in place, keeping what the user wrote above and below it', async () => {
    await writeFile(join(target, 'AGENTS.md'), '# Ours\n')
    await write('Rule one.')
    await writeFile(join(target, 'AGENTS.md'), `${await agents()}\n## Added below\n`)
    await write('Rule one.\n\nRule two.')
    expect(await agents()).toBe('# Ours\n\n<!-- oac:begin oac-tools -->\nRule one.\n\nRule two.\n<!-- oac:end oac-tools -->\n\n## Added below\n')
    // Text below ours stays the user's: only our lines go.
    await write()
    expect(await agents()).toBe('# Ours\n\n\n## Added below\n')
  })

  it('refuses to overwrite the block once edited by hand (force does), and leaves a block the user wrote alone', async () => {
    await write('Rule one.')
    await writeFile(join(target, 'AGENTS.md'), (await agents()).replace('Rule one.', 'Rule one, edited.'))
    const refused = await write('Rule two.')
    expect(refused.diagnostics.map((d) => d.code)).toEqual(['merge-entry-edited'])
    expect(await agents()).toContain('Rule one, edited.')
    expect((await write('Rule two.', true)).diagnostics.map((d) => d.severity)).toEqual(['warning'])
    expect(await agents()).toContain('Rule two.')

    const other = await mkdtemp(join(tmpdir(), 'oac-markdown-theirs-'))
    const theirs = '<!-- oac:begin oac-tools -->\nTheir own.\n<!-- oac:end oac-tools -->\n'
    await writeFile(join(other, 'AGENTS.md'), theirs)
    const taken = await writeOutputs([file('Rule one.')], { target: other, mode: 'write', force: false, owner: 'oac-tools' })
    expect(taken.diagnostics).toMatchObject([{ code: 'merge-key-taken', line: 1 }])
    expect(await readFile(join(other, 'AGENTS.md'), 'utf8')).toBe(theirs)
    await rm(other, { recursive: true, force: true })
  })
})
