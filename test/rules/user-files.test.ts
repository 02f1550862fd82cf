import { mkdir, rm, symlink, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { copyProject, repoRoot } from '../util/project.js'

/*
 * A user's own instruction file that would make a harness read the rules twice, or that takes the root
 * AGENTS.md's place, is reported with what to do (docs/instructions.md: what each CLI read).
 */

let project: string
beforeEach(async () => {
  project = await copyProject(resolve(repoRoot, 'test/fixtures/rules'), 'oac-rules-user-files-')
  await writeFile(join(project, 'AGENTS.md'), '# Ours\n')
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

const build = (harnesses: Parameters<typeof compile>[0]['harnesses']) => compile({ root: project, registry: 'agents/registries.ts:valid', config: 'style', harnesses })
const reported = (diagnostics: { code: string; file?: string; message: string }[]) =>
  diagnostics.filter((d) => d.code === 'rule-read-twice' || d.code === 'rule-hidden').map((d) => `${d.code} ${d.file} ${d.message.split(' ')[0]}`)

describe("the user's own instruction files", () => {
  it('reports a CLAUDE.md linked to AGENTS.md, for Claude Code and Copilot, which read both', async () => {
    await symlink('AGENTS.md', join(project, 'CLAUDE.md'))
    const { diagnostics } = await build(['claude', 'copilot', 'codex'])
    expect(reported(diagnostics)).toEqual(['rule-read-twice CLAUDE.md Claude', 'rule-read-twice CLAUDE.md GitHub'])
  })

  it('reports an @AGENTS.md line where the harness reads the import again, not in Claude Code, which reads it once', async () => {
    await writeFile(join(project, 'CLAUDE.md'), 'Read @AGENTS.md first.\n')
    await writeFile(join(project, 'QWEN.md'), '@AGENTS.md\n')
    await writeFile(join(project, 'GEMINI.md'), 'Plain text, mail me@AGENTS.md.example\n')
    const { diagnostics } = await build(['claude', 'copilot', 'gemini', 'qwen'])
    expect(reported(diagnostics)).toEqual(['rule-read-twice CLAUDE.md GitHub', 'rule-read-twice QWEN.md Qwen'])
    expect(diagnostics.find((d) => d.code === 'rule-read-twice')!.fix).toContain('Remove the @AGENTS.md line from CLAUDE.md')
  })

  it('reports an AGENTS.override.md for Codex and a .omp/AGENTS.md for oh-my-pi, which read it in place of AGENTS.md', async () => {
    await writeFile(join(project, 'AGENTS.override.md'), 'Override.\n')
    await mkdir(join(project, '.omp'))
    await writeFile(join(project, '.omp/AGENTS.md'), 'Ours for omp.\n')
    const { diagnostics } = await build(['codex', 'omp', 'pi'])
    expect(reported(diagnostics)).toEqual(['rule-hidden AGENTS.override.md Codex', 'rule-hidden .omp/AGENTS.md oh-my-pi'])
  })

  it('says nothing with no always-on rule', async () => {
    await symlink('AGENTS.md', join(project, 'CLAUDE.md'))
    const { diagnostics } = await compile({ root: project, registry: 'agents/registries.ts:valid', config: 'none', harnesses: ['claude', 'copilot'] })
    expect(reported(diagnostics)).toEqual([])
  })
})
