import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { compile } from '../../src/api.js'
import { copyProject, repoRoot } from '../util/project.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isolatedHome } from './cache.js'
import { converse } from './conversation.js'
import { DRIVERS, toolCall } from './drivers.js'
import { type CompiledProject, compiledProject, direct, fixture as subagentFixture } from './project.js'

/*
 * Cline 3.0.65 against the scripted model (loopback only), in projects compiled for Cline alone: the
 * model is shown `word_count` (our plugin's tool, by its own name) and gets the script's output back;
 * the `guard` hook of test/harness/fixtures/hooks blocks `rm -rf` in `run_commands`, and its reason is
 * the tool result the model reads; installed in a home (scope user), Cline started in an empty folder
 * shows word_count and runs it; `/forecast Lisbon` sends the workflow's text with `Lisbon` after it; the
 * model starts the skill through Cline's `skills` tool and reads its instructions once.
 *   npx vitest run --config vitest.harness.config.ts test/harness/cline.test.ts
 */

const driver = DRIVERS.cline
const projects: CompiledProject[] = []
/** Folders of the tests that compile without compiledProject. */
const folders: string[] = []

beforeAll(async () => {
  await driver.install()
})

afterAll(async () => {
  for (const project of projects) await rm(project.dir, { recursive: true, force: true })
  for (const dir of folders) await rm(dir, { recursive: true, force: true })
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

  it('sees word_count installed in the home (scope user), started in a folder of the user that holds nothing of ours', async () => {
    const { home, env } = await isolatedHome()
    const source = await copyProject(subagentFixture, 'oac-cline-user-src-')
    const work = await mkdtemp(join(tmpdir(), 'oac-cline-user-work-'))
    folders.push(source, work, home)
    const { plan, diagnostics } = await compile({ root: source, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['cline'], scope: 'user', target: home })
    expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([])
    expect(existsSync(join(home, `.cline/plugins/${plan.serverName}.ts`))).toBe(true)
    const call = toolCall('cline', plan, 'word_count', { text: 'one two three' })
    const model = await converse(driver, { project: work, plan, home, env }, { main: [{ calls: [call] }, { text: 'done' }] })
    const [first, second] = model.conversation('main')
    expect(first!.tools.map((tool) => tool.name)).toContain('word_count')
    expect(second!.toolResults.map((result) => driver.resultText(result.text))).toEqual(['3 words'])
  })

  it('a workflow started as /<name> <text>: the model gets its text, then the text typed after the name', async () => {
    const dir = await copyProject(resolve(repoRoot, 'test/fixtures/skills-commands'), 'oac-cline-workflow-')
    const { home, env } = await isolatedHome()
    folders.push(dir, home)
    const { plan } = await compile({ root: dir, registry: 'agents/registries.ts:valid', harnesses: ['cline'] })
    expect(existsSync(join(dir, '.cline/workflows/forecast.md'))).toBe(true)
    const model = await converse(driver, { project: dir, plan, home, env, prompt: '/forecast Lisbon' }, { main: [{ text: 'done' }] })
    const messages = model.conversation('main')[0]!.body.messages as Array<{ role: string; content: unknown }>
    // test/fixtures/skills-commands: the command's prompt is `Get the forecast for {{args}} and summarise it.`
    expect(messages.filter((message) => message.role === 'user')).toEqual([{ role: 'user', content: 'Get the forecast for the text at the end of this message and summarise it. Lisbon' }])
  })

  it('a skill: listed once in its skills tool, and its instructions handed to the model that starts it', async () => {
    const dir = await copyProject(resolve(repoRoot, 'test/fixtures/skills-commands'), 'oac-cline-skill-')
    const { home, env } = await isolatedHome()
    folders.push(dir, home)
    const { plan } = await compile({ root: dir, registry: 'agents/registries.ts:valid', harnesses: ['cline'] })
    const call = { name: 'skills', input: { skill: 'weather-reports', args: null } }
    const model = await converse(driver, { project: dir, plan, home, env }, { main: [{ calls: [call] }, { text: 'done' }] })
    const [first, second] = model.conversation('main')
    // The skills tool's description lists the skills by name (OpenAI's chat format: `{ type, function: { name, description } }`).
    const tools = first!.body.tools as Array<{ function: { name: string; description: string } }>
    const listing = tools.find((tool) => tool.function.name === 'skills')!.function.description
    expect(listing.split('weather-reports').length - 1, listing).toBe(1)
    // A line of test/fixtures/skills-commands/agents/skills/reports.md.
    const result = driver.resultText(second!.toolResults[0]!.text)
    expect(result).toContain('Write a weather report for each city the user names')
    expect(result.split('Write a weather report for each city the user names').length - 1).toBe(1)
  })
})
