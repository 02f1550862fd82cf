import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import type { Harness } from '../../src/define/types.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { copyProject, repoRoot } from '../util/project.js'

// Codex, started in a folder below the target, reads the target's `.codex/` only from inside a project
// root (a folder holding `.git`, by default): test/harness/codex-project-root.test.ts shows the real CLI.
const basic = resolve(repoRoot, 'test/fixtures/load-basic')

/** Compiles the basic fixture (in a temp folder, in no git repository) into `target`, relative to it. */
async function compileInto(project: string, target: string, harnesses: Harness[]): Promise<Diagnostic[]> {
  const { diagnostics } = await compile({ root: project, registry: 'agents/registry.ts:registry', harnesses, target })
  return diagnostics.filter((d) => d.code.endsWith('-no-project-root'))
}

describe('the target in no project root', () => {
  it('warns, with Codex selected, naming the target folder and the fix', async () => {
    const project = await copyProject(basic)
    const warnings = await compileInto(project, 'out', ['claude', 'codex'])
    expect(warnings).toHaveLength(1)
    const [warning] = warnings
    expect(warning).toMatchObject({ severity: 'warning', code: 'codex-no-project-root' })
    expect(warning!.message).toContain(`The target folder ${join(project, 'out')} is in no Codex project root (no folder from it up holds .git)`)
    expect(warning!.fix).toContain('`git init`')
    expect(warning!.fix).toContain('`project_root_markers` in ~/.codex/config.toml')
  })

  it('says nothing where Codex is not selected', async () => {
    const project = await copyProject(basic)
    expect(await compileInto(project, 'out', ['claude', 'opencode'])).toEqual([])
  })

  it('says nothing where the target is a git repository, or inside one', async () => {
    const project = await copyProject(basic)
    await promisify(execFile)('git', ['init', '-q', project])
    expect(await compileInto(project, '.', ['codex'])).toEqual([])
    expect(await compileInto(project, 'build/agents', ['codex'])).toEqual([])
  })

  it('takes a `.git` file (a worktree, a submodule) for a marker, as Codex does', async () => {
    const project = await copyProject(basic)
    await writeFile(join(project, '.git'), 'gitdir: /elsewhere/.git/worktrees/x\n')
    expect(await compileInto(project, 'out', ['codex'])).toEqual([])
  })

  it('warns in a check too, which writes nothing', async () => {
    const project = await copyProject(basic)
    await mkdir(join(project, 'out'))
    const { diagnostics, report } = await compile({ root: project, registry: 'agents/registry.ts:registry', harnesses: ['codex'], target: 'out', mode: 'check' })
    expect(diagnostics.map((d) => d.code)).toContain('codex-no-project-root')
    expect(report.written.length).toBeGreaterThan(0)
  })
})
