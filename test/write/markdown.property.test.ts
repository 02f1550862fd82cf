import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MergeFile } from '../../src/emit/types.js'
import { writeOutputs } from '../../src/write/index.js'

/**
 * Any user Markdown file (no final line break, CRLF, a BOM, empty, lines that look like our markers)
 * through any sequence of compiles that add, change and take out our block: each compile's repeat
 * writes nothing, and the last compile, which takes the block out, gives back the user's exact bytes.
 */

let root: string
let runs = 0
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'oac-markdown-prop-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

// Our begin line alone (a user's lookalike with no end after it), and end lines of other ids: never a
// whole block of ours, which would be the user's own block (test/write/markdown-merge.test.ts).
const userLine = fc.constantFrom(
  '# Project',
  '',
  '   ',
  'Keep answers short.',
  '- a list item',
  '```',
  '<!-- a comment -->',
  '# <!-- oac:begin oac-tools -->',
  '<!-- oac:begin oac-tools -->',
  '<!-- oac:end other -->',
  '<!-- oac:begin other -->',
  '@AGENTS.md',
  'ünïcødé ✓',
)

const userFile = fc
  .record({ lines: fc.array(userLine, { maxLength: 8 }), eol: fc.constantFrom('\n', '\r\n'), finalBreak: fc.boolean(), bom: fc.boolean() })
  .map(({ lines, eol, finalBreak, bom }) => (bom ? '\uFEFF' : '') + lines.join(eol) + (finalBreak && lines.length > 0 ? eol : ''))

// What a compile writes into the block: the rules' text, or nothing (the block taken out).
const blockText = fc.option(fc.constantFrom('Rule one.', '## house-style\n\nAnswer in short sentences.', 'Rule one.\n\nRule two.\n', ''), { nil: undefined })

describe("our block in a user's Markdown file", () => {
  it('gives back the user’s bytes after any sequence of compiles, and a repeated compile writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(userFile, { nil: undefined }), fc.array(blockText, { minLength: 1, maxLength: 5 }), async (original, sequence) => {
        const target = join(root, `run-${runs++}`)
        await mkdir(target, { recursive: true })
        if (original !== undefined) await writeFile(join(target, 'AGENTS.md'), original)
        for (const text of [...sequence, undefined]) {
          const file: MergeFile = { kind: 'merge', path: 'AGENTS.md', format: 'markdown', entries: text === undefined ? [] : [{ keyPath: ['oac-tools'], value: text }] }
          const options = { target, mode: 'write' as const, force: false, owner: 'oac-tools' }
          expect((await writeOutputs([file], options)).diagnostics).toEqual([])
          const again = await writeOutputs([file], options)
          expect(again.diagnostics).toEqual([])
          expect(again.written).toEqual([])
        }
        const after = await readFile(join(target, 'AGENTS.md'), 'utf8').catch(() => undefined)
        expect(after).toBe(original)
        await rm(target, { recursive: true, force: true })
      }),
      { numRuns: 60 },
    )
  })
})
