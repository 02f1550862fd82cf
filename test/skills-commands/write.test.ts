import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, realpath, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type CompileOptions, compile } from '../../src/api.js'
import { OacError } from '../../src/diagnostics.js'
import { copyProject, repoRoot } from '../util/project.js'

// Skill folders and command files are owned files: the write stage's manifest, stale-file removal,
// hand-edit refusal and "a user's file of that path is a conflict" hold for them, through a real build.

let project: string
beforeEach(async () => {
  project = await copyProject(join(repoRoot, 'test/fixtures/skills-commands'), 'oac-skills-write-')
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

const build = (extra: Partial<CompileOptions> = {}) => compile({ root: project, registry: 'agents/registries.ts:valid', harnesses: ['claude', 'gemini', 'codex'], ...extra })
const read = (path: string) => readFile(join(project, path), 'utf8')

/** The build's error diagnostics (it must fail). */
async function refused(extra: Partial<CompileOptions> = {}) {
  const error = await build(extra).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(OacError)
  return (error as OacError).diagnostics.filter((d) => d.severity === 'error')
}

describe('skills and commands are owned files', () => {
  it('the manifest lists every skill and command file the build wrote', async () => {
    const { report } = await build()
    const manifest = JSON.parse(await read('.oac/manifest.oac-tools.json')) as { files: Record<string, unknown> }
    const ours = ['.claude/skills/weather-reports/SKILL.md', '.agents/skills/weather-reports/scripts/forecast.mjs', '.agents/skills/weather-reports/templates/report.md', '.claude/commands/forecast.md', '.gemini/commands/forecast.toml', '.codex/skills/forecast/SKILL.md', '.codex/skills/forecast/agents/openai.yaml']
    for (const path of ours) {
      expect(report.written, path).toContain(path)
      expect(Object.keys(manifest.files), path).toContain(path)
    }
  })

  it("a user's own skill or command at the path of ours is a conflict: nothing written, their files kept", async () => {
    const userSkill = '---\nname: weather-reports\ndescription: My own.\n---\n\nMine.\n'
    const userCommand = '---\ndescription: My forecast\n---\n\nMy own $ARGUMENTS.\n'
    await mkdir(join(project, '.agents/skills/weather-reports'), { recursive: true })
    await writeFile(join(project, '.agents/skills/weather-reports/SKILL.md'), userSkill)
    await mkdir(join(project, '.claude/commands'), { recursive: true })
    await writeFile(join(project, '.claude/commands/forecast.md'), userCommand)
    const errors = await refused()
    expect(errors.map((d) => [d.code, d.message])).toEqual(
      expect.arrayContaining([
        ['owned-path-taken', '.agents/skills/weather-reports/SKILL.md exists and was not written by unplugin-oac; it would be overwritten.'],
        ['owned-path-taken', '.claude/commands/forecast.md exists and was not written by unplugin-oac; it would be overwritten.'],
      ]),
    )
    expect(await read('.agents/skills/weather-reports/SKILL.md')).toBe(userSkill)
    expect(await read('.claude/commands/forecast.md')).toBe(userCommand)
    expect(existsSync(join(project, '.claude/skills/weather-reports/SKILL.md'))).toBe(false)
  })

  it('a hand edit of a generated SKILL.md or command file is refused, and kept', async () => {
    await build()
    const edited = `${await read('.claude/skills/weather-reports/SKILL.md')}\nMy note.\n`
    await writeFile(join(project, '.claude/skills/weather-reports/SKILL.md'), edited)
    const errors = await refused()
    expect(errors).toMatchObject([{ code: 'owned-file-edited', file: expect.stringContaining('.claude/skills/weather-reports/SKILL.md') }])
    expect(await read('.claude/skills/weather-reports/SKILL.md')).toBe(edited)
  })

  it("a renamed skill's old folder goes, but a file the user added to it stays; a removed command's files go", async () => {
    await build()
    await writeFile(join(project, '.agents/skills/weather-reports/my-notes.md'), 'mine\n')
    const registry = join(project, 'agents/registries.ts')
    const source = await read('agents/registries.ts')
    await writeFile(registry, source.replace("name: 'weather-reports',", "name: 'city-reports',").replace('commands: [forecastCommand] })', 'commands: [] })'))
    const { report } = await build()
    expect(report.removed).toEqual(expect.arrayContaining(['.agents/skills/weather-reports/SKILL.md', '.agents/skills/weather-reports/scripts/forecast.mjs', '.claude/commands/forecast.md', '.codex/skills/forecast/SKILL.md']))
    expect(existsSync(join(project, '.agents/skills/weather-reports/SKILL.md'))).toBe(false)
    expect(await read('.agents/skills/weather-reports/my-notes.md')).toBe('mine\n')
    expect(await read('.agents/skills/city-reports/SKILL.md')).toContain('name: city-reports')
  })

  it("a skill's copy of a script runs the tool in the project folder, started from any folder", async () => {
    await build()
    const sub = join(project, 'agents/skills')
    const { stdout } = await promisify(execFile)('node', [join(project, '.claude/skills/weather-reports/scripts/chart.mjs'), '--city', 'Porto'], { cwd: sub })
    expect(stdout.trim()).toBe(`A chart of Porto, drawn in ${await realpath(project)}.`)
    // From the project folder, the documented command is the project's own script.
    const direct = await promisify(execFile)('node', ['scripts/chart.mjs', '--city', 'Porto'], { cwd: project })
    expect(direct.stdout).toBe(stdout)
  })
})
