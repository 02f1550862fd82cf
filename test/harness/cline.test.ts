import { existsSync } from 'node:fs'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import { type CompiledProject, compiledProject, direct, fixture as subagentFixture } from './project.js'

/*
 * Cline 3.0.65 against the scripted model (loopback only), in projects compiled for Cline alone: the
 * model is shown `word_count` (our plugin's tool, by its own name) and gets the script's output back;
 * the `guard` hook of test/harness/fixtures/hooks blocks `rm -rf` in `run_commands`, and its reason is
 * the tool result the model reads.
 *   npx vitest run --config vitest.harness.config.ts test/harness/cline.test.ts
 */

const driver = DRIVERS.cline
const projects: CompiledProject[] = []

beforeAll(async () => {
  await driver.install()
})

afterAll(async () => {
  for (const project of projects) await rm(project.dir, { recursive: true, force: true })
})

describe(driver.title, () => {
  it('shows the model word_count and hands it the tool\'s output', async () => {
    const project = await compiledProject(subagentFixture, 'oac-cline-tools-', { config: 'test', harnesses: ['cline'] })
    projects.push(project)
    const input = { text: 'one two three' }
    const call = toolCall('cline', project.plan, 'word_count', input)
    const { home, env } = await isolatedHome()
    const model = await converse(driver, { project: project.dir, plan: project.plan, home, env }, { main: [{ calls: [call] }, { text: 'done' }] })
    const [first, second] = model.conversation('main')
    expect(first!.tools.map((tool) => tool.name)).toContain(call.name)
    const shown = first!.tools.find((tool) => tool.name === call.name)!
    expect(shown.schema).toEqual(project.plan.tools.find((tool) => tool.name === 'word_count')!.schema)
    const expected = await direct(project.dir, 'word_count', input)
    expect(expected.code).toBe(0)
    expect(second!.toolResults.map((result) => driver.resultText(result.text))).toEqual([expected.stdout.trim()])
  })

  it('blocks rm -rf in run_commands through a beforeTool hook, and the model reads the reason', async () => {
    const project = await compiledProject(resolve(import.meta.dirname, 'fixtures/hooks'), 'oac-cline-hooks-', { config: 'test', harnesses: ['cline'] })
    projects.push(project)
    await mkdir(join(project.dir, 'victim'))
    await writeFile(join(project.dir, 'victim/keep.txt'), 'kept\n')
    const { home, env } = await isolatedHome()
    const shell = { name: 'run_commands', input: { commands: ['rm -rf victim'] } }
    const model = await converse(driver, { project: project.dir, plan: project.plan, home, env }, { main: [{ calls: [shell] }, { text: 'done' }] })
    const result = model.conversation('main')[1]!.toolResults[0]!
    expect(result.text).toContain('HOOK-GUARD cline refuses rm -rf')
    expect(existsSync(join(project.dir, 'victim/keep.txt'))).toBe(true)
  })
})
