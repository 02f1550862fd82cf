import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { main } from '../../src/cli.js'
import { copyProject, repoRoot } from '../util/project.js'

// The reported case (issue 15 §1) through a real `oac compile` of the playground, whose registry has an agent `reviewer`.

let project: string
beforeAll(async () => {
  project = await copyProject(join(repoRoot, 'playground'), 'oac-own-build-')
})
afterAll(async () => {
  await rm(project, { recursive: true, force: true })
})

async function oac(...extra: string[]): Promise<{ code: number; err: string }> {
  let err = ''
  const args = ['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'build', '--root', project, ...extra]
  const code = await main(args, () => undefined, (text) => (err += text))
  return { code, err }
}

it('a hand-written Codex agent file keeps its keys: refused, then forced, then given back byte for byte when the agent goes', { timeout: 60_000 }, async () => {
  const file = join(project, 'build/.codex/agents/reviewer.toml')
  const userFile = '# Hand-written reviewer, pre-existing\nname = "reviewer"\nmodel = "o3"\ndescription = "old description"\n'
  await mkdir(join(project, 'build/.codex/agents'), { recursive: true })
  await writeFile(file, userFile)

  const refused = await oac()
  expect(refused.code).toBe(1)
  expect(refused.err).toContain(`${file}:4:1: error [merge-key-taken] The key description in .codex/agents/reviewer.toml holds "old description"`)
  expect(refused.err).toContain('"Reviews changes against open issues. Use before merging."')
  expect(await readFile(file, 'utf8')).toBe(userFile)

  const forced = await oac('--force')
  expect(forced.code).toBe(0)
  const merged = await readFile(file, 'utf8')
  expect(merged).toMatch(/^# Hand-written reviewer, pre-existing\nname = "reviewer"\nmodel = "o3"\ndescription = "Reviews changes against open issues\. Use before merging\."\n/)

  const registry = join(project, 'agents/registry.ts')
  const source = await readFile(registry, 'utf8')
  expect(source).toContain('agents: [planner, triager, reviewer],')
  await writeFile(registry, source.replace('agents: [planner, triager, reviewer],', 'agents: [planner, triager],'))
  const removed = await oac()
  // Only the warnings that Codex shows every agent every tool, that Copilot and Cline have no settings for the
  // approval rules nor hand on the chart's image, and that the temp folder is in no Codex project root.
  expect(removed.err).toMatch(/^[^\n]* warning \[tools-not-scoped\] [^\n]*\n {2}fix: [^\n]*\n(?:[^\n]* warning \[approval-unsupported\] [^\n]*\n {2}fix: [^\n]*\n){2}(?:[^\n]* warning \[tool-result-text-only\] [^\n]*\n {2}fix: [^\n]*\n){2}warning \[codex-no-project-root\] [^\n]*\n {2}fix: [^\n]*\n$/)
  expect(removed.code).toBe(0)
  expect(await readFile(file, 'utf8')).toBe(userFile)
})
