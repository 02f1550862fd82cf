import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { compile } from '../../src/api.js'
import { HARNESSES } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * Rules outside a project: a user-scope install (`scope: 'user'`) puts the always-on rules into each
 * harness's own home instruction file, as a block of ours, and a path rule where a home scopes rules by
 * path; a plugin folder carries them where its format can (Gemini's and Qwen's extension). Real compiles
 * into temp folders, the files read back and parsed.
 */

const FIXTURE = resolve(repoRoot, 'test/fixtures/rules')
const ALWAYS = 'Answer in short sentences.'
const BEGIN = '<!-- oac:begin oac-tools -->'

/** Where each harness reads a user's own instructions, as docs/instructions.md measured them. */
const HOME_FILES = [
  '.claude/CLAUDE.md',
  '.codex/AGENTS.md',
  '.config/opencode/AGENTS.md',
  '.config/kilo/AGENTS.md',
  '.pi/agent/AGENTS.md',
  '.omp/agent/AGENTS.md',
  '.gemini/GEMINI.md',
  '.copilot/copilot-instructions.md',
  '.qwen/QWEN.md',
  '.agents/AGENTS.md',
]

const cleanup: string[] = []
let source: string
let testingText: string

beforeAll(async () => {
  source = await copyProject(FIXTURE, 'oac-rules-places-')
  cleanup.push(source)
  testingText = await readFile(join(FIXTURE, 'agents/rules/testing.md'), 'utf8')
})

afterAll(async () => {
  for (const dir of cleanup) await rm(dir, { recursive: true, force: true })
})

async function filesIn(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
}

function frontmatter(content: string): { data: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n([\s\S]*)$/.exec(content)
  if (!match) throw new Error(`no frontmatter in:\n${content}`)
  return { data: parseYaml(match[1]!) as Record<string, unknown>, body: match[2]! }
}

describe("rules in a user's home", () => {
  let home: string
  const install = (config?: string) => compile({ root: source, registry: 'agents/registries.ts:valid', scope: 'user', target: home, harnesses: [...HARNESSES], ...(config && { config }) })

  beforeAll(async () => {
    home = await tempDir('oac-rules-home-')
    cleanup.push(home)
  })

  it("writes the always-on rules once into each harness's home file, keeping the user's bytes, and a path rule where a home scopes by path", async () => {
    const theirs = '# Mine\r\n\r\nKeep it brief.'
    await mkdir(join(home, '.claude'), { recursive: true })
    await writeFile(join(home, '.claude/CLAUDE.md'), theirs)
    const { diagnostics } = await install()
    expect(diagnostics.map((d) => d.code)).not.toContain('rule-target-unsupported')
    const unscoped = diagnostics.filter((d) => d.code === 'rule-paths-unscoped')
    expect(unscoped).toHaveLength(1)
    expect(unscoped[0]!.message).toContain('opencode, Codex, pi, Gemini CLI, Kilo, Cline cannot scope a rule by path')

    const files = await filesIn(home)
    const holding: string[] = []
    for (const file of files) if ((await readFile(join(home, file), 'utf8')).includes(ALWAYS)) holding.push(file)
    expect(holding.sort()).toEqual([...HOME_FILES].sort())
    expect(await readFile(join(home, '.claude/CLAUDE.md'), 'utf8')).toBe(`${theirs}\r\n\r\n${BEGIN}\r\n${ALWAYS}\r\n<!-- oac:end oac-tools -->\r\n`)
    for (const file of HOME_FILES.filter((file) => file !== '.claude/CLAUDE.md')) {
      expect(await readFile(join(home, file), 'utf8')).toBe(`${BEGIN}\n${ALWAYS}\n<!-- oac:end oac-tools -->\n`)
    }

    const globs = ['**/*.test.ts', 'test/**']
    expect(frontmatter(await readFile(join(home, '.claude/rules/testing.md'), 'utf8'))).toEqual({ data: { description: 'How we write tests.', paths: globs }, body: testingText })
    expect(frontmatter(await readFile(join(home, '.qwen/rules/testing.md'), 'utf8')).data).toEqual({ description: 'How we write tests.', paths: globs })
    expect(frontmatter(await readFile(join(home, '.omp/agent/rules/testing.md'), 'utf8')).data).toEqual({ description: 'How we write tests.', globs })
    // Copilot reads no ~/.claude/rules (docs/instructions.md, scenario `home`): it gets its own.
    expect(frontmatter(await readFile(join(home, '.copilot/instructions/testing.instructions.md'), 'utf8')).data).toEqual({ description: 'How we write tests.', applyTo: globs.join(',') })
    expect(files.filter((file) => file.includes('testing'))).toHaveLength(4)
  })

  it('writes nothing on a second install, and gives back the user’s bytes once the rules go', async () => {
    expect((await install()).report.written).toEqual([])
    await install('none')
    expect(await readFile(join(home, '.claude/CLAUDE.md'), 'utf8')).toBe('# Mine\r\n\r\nKeep it brief.')
    for (const file of [...HOME_FILES.filter((file) => file !== '.claude/CLAUDE.md'), '.claude/rules/testing.md', '.qwen/rules/testing.md', '.omp/agent/rules/testing.md', '.copilot/instructions/testing.instructions.md']) {
      expect(existsSync(join(home, file)), file).toBe(false)
    }
  })
})

describe("a user's home file that hides a harness's", () => {
  it("reports Codex's ~/.codex/AGENTS.override.md, which Codex reads in place of ~/.codex/AGENTS.md", async () => {
    const home = await tempDir('oac-rules-home-override-')
    cleanup.push(home)
    const install = () => compile({ root: source, registry: 'agents/registries.ts:valid', scope: 'user', target: home, harnesses: ['codex', 'claude'] })
    expect((await install()).diagnostics.map((d) => d.code)).not.toContain('rule-hidden')
    await writeFile(join(home, '.codex/AGENTS.override.md'), 'Our override.\n')
    const hidden = (await install()).diagnostics.filter((d) => d.code === 'rule-hidden')
    expect(hidden).toHaveLength(1)
    expect(hidden[0]).toMatchObject({ severity: 'warning', file: '.codex/AGENTS.override.md' })
    expect(hidden[0]!.message).toContain('Codex reads .codex/AGENTS.override.md in place of .codex/AGENTS.md')
  })
})

describe('rules in a plugin folder', () => {
  const build = async (harnesses: typeof HARNESSES) => {
    const dir = await tempDir('oac-rules-plugin-')
    cleanup.push(dir)
    const again = () => compile({ root: source, registry: 'agents/registries.ts:valid', harnesses: [...harnesses], plugin: { name: 'house-rules', version: '1.0.0', description: 'Our rules.' }, target: dir })
    const result = await again()
    const json = async (path: string) => JSON.parse(await readFile(join(dir, path), 'utf8')) as Record<string, unknown>
    return { dir, result, json, again, files: await filesIn(dir) }
  }

  it("puts the always-on rules into the extension's context file, named by Gemini's and Qwen's manifests, and the path rule into Qwen's rules/", async () => {
    const { dir, result, json, files, again } = await build(['gemini', 'qwen'])
    expect((await json('gemini-extension.json')).contextFileName).toBe('GEMINI.md')
    expect((await json('qwen-extension.json')).contextFileName).toBe('GEMINI.md')
    expect(await readFile(join(dir, 'GEMINI.md'), 'utf8')).toBe(`${ALWAYS}\n`)
    expect(frontmatter(await readFile(join(dir, 'rules/testing.md'), 'utf8'))).toEqual({ data: { description: 'How we write tests.', paths: ['**/*.test.ts', 'test/**'] }, body: testingText })
    expect(files.filter((file) => /GEMINI|rules\//.test(file)).sort()).toEqual(['GEMINI.md', 'rules/testing.md'])
    expect((await json('package.json')).files).toEqual(expect.arrayContaining(['GEMINI.md', 'rules']))
    // Gemini CLI cannot scope the path rule in an extension; Qwen Code can.
    const codes = result.diagnostics.map((d) => d.code)
    expect(codes.filter((code) => code.startsWith('rule-'))).toEqual(['rule-paths-unscoped'])
    expect(result.diagnostics.find((d) => d.code === 'rule-paths-unscoped')!.message).toContain('but Gemini CLI cannot scope')
    expect((await again()).report.written).toEqual([])
  })

  it('warns, naming them, for the formats that carry no instructions, and writes no rule file for them', async () => {
    const { json, files, result } = await build(['claude', 'codex'])
    const left = result.diagnostics.filter((d) => d.code === 'rule-target-unsupported')
    expect(left).toHaveLength(1)
    expect(left[0]!.message).toContain('for Claude Code, Codex')
    expect(left[0]!.message).toContain('(for Gemini CLI, Qwen Code)')
    expect(left[0]!.fix).toBeTruthy()
    expect(result.diagnostics.map((d) => d.code)).not.toContain('rule-paths-unscoped')
    expect(files.some((file) => /GEMINI\.md|AGENTS\.md|CLAUDE\.md|rules\//.test(file))).toBe(false)
    expect(Object.keys(await json('package.json'))).toContain('files')
  })
})

describe('an always-on rule for Cline', () => {
  it("reaches it through the root AGENTS.md alone, and a user's .clinerules holding its text is reported", async () => {
    const project = await copyProject(FIXTURE, 'oac-rules-cline-')
    cleanup.push(project)
    const first = await compile({ root: project, registry: 'agents/registries.ts:valid', harnesses: ['cline'] })
    const holding: string[] = []
    for (const file of await filesIn(project)) if (!file.startsWith('agents/') && !file.startsWith('node_modules/') && (await readFile(join(project, file), 'utf8')).includes(ALWAYS)) holding.push(file)
    expect(holding).toEqual(['AGENTS.md'])
    expect(first.diagnostics.map((d) => d.code)).toContain('rule-paths-unscoped')
    await mkdir(dirname(join(project, '.clinerules')), { recursive: true })
    await writeFile(join(project, '.clinerules'), await readFile(join(project, 'AGENTS.md'), 'utf8'))
    const again = await compile({ root: project, registry: 'agents/registries.ts:valid', harnesses: ['cline'] })
    expect(again.diagnostics.find((d) => d.code === 'rule-read-twice')).toMatchObject({ file: '.clinerules' })
  })
})
