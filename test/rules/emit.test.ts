import { existsSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { compile } from '../../src/api.js'
import { compilePlan } from '../../src/compile/index.js'
import type { Plan } from '../../src/compile/plan.js'
import type { Harness } from '../../src/define/types.js'
import { emitAll } from '../../src/emit/index.js'
import type { OutputFile } from '../../src/emit/types.js'
import { loadRegistry } from '../../src/load/index.js'
import { copyProject, repoRoot } from '../util/project.js'

const root = resolve(repoRoot, 'test/fixtures/rules')

let valid: Plan
beforeAll(async () => {
  valid = compilePlan(await loadRegistry('agents/registries.ts:valid', root), { root }).plan!
})

const emitted = (harnesses: Harness[]) => emitAll({ ...valid, harnesses })
const find = (files: OutputFile[], path: string) => files.find((file) => file.path === path)

function frontmatter(files: OutputFile[], path: string): { data: Record<string, unknown>; body: string } {
  const file = find(files, path)
  if (file?.kind !== 'owned') throw new Error(`no owned file ${path} among:\n${files.map((f) => f.path).join('\n')}`)
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(file.content)
  return { data: parseYaml(match![1]!) as Record<string, unknown>, body: match![2]! }
}

describe('rules in each harness’s instruction files', () => {
  it('puts the always-on rules in one block of the root AGENTS.md, with an import for Claude Code and the settings list for Gemini CLI', () => {
    const files = emitted(['opencode', 'claude', 'codex', 'pi', 'omp', 'gemini', 'copilot', 'qwen', 'kilo'])
    expect(find(files, 'AGENTS.md')).toEqual({ kind: 'merge', path: 'AGENTS.md', format: 'markdown', entries: [{ keyPath: ['oac-tools'], value: 'Answer in short sentences.' }] })
    expect(find(files, '.claude/CLAUDE.md')).toEqual({ kind: 'merge', path: '.claude/CLAUDE.md', format: 'markdown', entries: [{ keyPath: ['oac-tools'], value: '@../AGENTS.md' }] })
    const gemini = find(files, '.gemini/settings.json')
    expect(gemini?.kind === 'merge' && gemini.entries.filter((entry) => entry.keyPath[0] === 'context')).toEqual([
      { keyPath: ['context', 'fileName', '[]', 'AGENTS.md'], value: 'AGENTS.md' },
      { keyPath: ['context', 'fileName', '[]', 'GEMINI.md'], value: 'GEMINI.md' },
    ])
    // The rule's text is in no other file: no CLAUDE.md, GEMINI.md, QWEN.md or copilot-instructions.md of ours.
    const always = files.filter((file) => (file.kind === 'owned' ? file.content : JSON.stringify(file.entries)).includes('Answer in short sentences.'))
    expect(always.map((file) => file.path)).toEqual(['AGENTS.md'])
  })

  it('writes a path rule where each harness scopes rules by path, once per folder a harness reads', async () => {
    const text = await readFile(join(root, 'agents/rules/testing.md'), 'utf8')
    const globs = ['**/*.test.ts', 'test/**']
    // Copilot reads `.claude/rules` by `paths:` as well as its own folder; oh-my-pi reads Copilot's.
    const all = emitted(['claude', 'omp', 'copilot', 'qwen'])
    expect(frontmatter(all, '.claude/rules/testing.md')).toEqual({ data: { description: 'How we write tests.', paths: globs }, body: text })
    expect(frontmatter(all, '.qwen/rules/testing.md').data).toEqual({ description: 'How we write tests.', paths: globs })
    expect(frontmatter(all, '.omp/rules/testing.md').data).toEqual({ description: 'How we write tests.', globs })
    expect(find(all, '.github/instructions/testing.instructions.md')).toBeUndefined()
    // Without Claude Code, Copilot gets its own, which oh-my-pi reads.
    const withoutClaude = emitted(['omp', 'copilot'])
    expect(frontmatter(withoutClaude, '.github/instructions/testing.instructions.md').data).toEqual({ description: 'How we write tests.', applyTo: '**/*.test.ts,test/**' })
    expect(find(withoutClaude, '.omp/rules/testing.md')).toBeUndefined()
    expect(frontmatter(emitted(['omp']), '.omp/rules/testing.md').data).toEqual({ description: 'How we write tests.', globs })
  })

  it('needs nothing but AGENTS.md for the harnesses that read it by themselves', () => {
    const files = emitted(['codex', 'opencode', 'pi', 'kilo'])
    expect(files.filter((file) => file.kind === 'merge' && file.format === 'markdown').map((file) => file.path)).toEqual(['AGENTS.md'])
    expect(files.some((file) => file.path.includes('rules/'))).toBe(false)
  })

  it("writes the block into the user's own AGENTS.md, writes nothing on a second compile, and gives back their bytes once the rules go", async () => {
    const project = await copyProject(root, 'oac-rules-emit-')
    try {
      const theirs = '# Our project\r\n\r\nRun `npm test` before you commit.'
      await writeFile(join(project, 'AGENTS.md'), theirs)
      const first = await compile({ root: project, registry: 'agents/registries.ts:valid', harnesses: ['claude', 'codex', 'gemini'] })
      expect(first.report.written).toEqual(expect.arrayContaining(['AGENTS.md', '.claude/CLAUDE.md', '.claude/rules/testing.md', '.gemini/settings.json']))
      expect(await readFile(join(project, 'AGENTS.md'), 'utf8')).toBe(`${theirs}\r\n\r\n<!-- oac:begin oac-tools -->\r\nAnswer in short sentences.\r\n<!-- oac:end oac-tools -->\r\n`)
      const second = await compile({ root: project, registry: 'agents/registries.ts:valid', harnesses: ['claude', 'codex', 'gemini'] })
      expect(second.report.written).toEqual([])
      await compile({ root: project, registry: 'agents/registries.ts:valid', config: 'none', harnesses: ['claude', 'codex', 'gemini'] })
      expect(await readFile(join(project, 'AGENTS.md'), 'utf8')).toBe(theirs)
      expect(existsSync(join(project, '.claude/CLAUDE.md'))).toBe(false)
      expect(existsSync(join(project, '.claude/rules/testing.md'))).toBe(false)
    } finally {
      await rm(project, { recursive: true, force: true })
    }
  })
})
