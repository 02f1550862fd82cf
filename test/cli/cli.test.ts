import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { parse } from 'smol-toml'
import { beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/cli.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

const execFileAsync = promisify(execFile)

async function oac(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(args, (t) => (out += t), (t) => (err += t))
  return { code, out, err }
}

describe('oac CLI: the command line', () => {
  it('documents every option in --help', async () => {
    const { code, out } = await oac(['--help'])
    expect(code).toBe(0)
    for (const option of ['--config', '--target', '--root', '--native-tools', '--no-native-tools', '--harness', '--server-name', '--bridge', '--no-codex-config', '--force', '--check', '--dry-run', '--reporter', '--plugin', '--plugin-name', '--plugin-version', '--scope']) {
      expect(out).toContain(option)
    }
  })

  it('prints the package version with --version and -v', async () => {
    const { version } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { version: string }
    for (const flag of ['--version', '-v']) {
      const { code, out } = await oac([flag])
      expect(code, flag).toBe(0)
      expect(out, flag).toBe(`${version}\n`)
    }
  })

  it.each([
    [['build'], 'unknown command "build"'],
    [['compile'], 'missing <registry>'],
    [['compile', 'a.ts', '--harness', 'vim'], '--harness takes a comma-separated list'],
    [['compile', 'a.ts', '--reporter', 'xml'], '--reporter must be text or json'],
    [['compile', 'a.ts', '--check', '--dry-run'], 'exclude each other'],
    [['compile', 'a.ts', '--bogus'], "Unknown option '--bogus'"],
    [['compile', 'a.ts', '--plugin', 'out', '--target', 'build'], '--plugin names the folder to write, as --target does: give one of them'],
    [['compile', 'a.ts', '--plugin-name', 'my-tools'], '--plugin-name and --plugin-version go with --plugin <dir>'],
    [['compile', 'a.ts', '--plugin-version', '1.0.0'], '--plugin-name and --plugin-version go with --plugin <dir>'],
    [['compile', 'a.ts', '--scope', 'team'], '--scope must be project or user, not "team"'],
    [['compile', 'a.ts', '--scope', 'user', '--target', 'build'], '--scope user writes into your home folder'],
    [['compile', 'a.ts', '--scope', 'user', '--plugin', 'out'], 'leave out --plugin'],
    [['remove', 'a.ts'], 'unexpected argument "a.ts"'],
    [['remove', '--harness', 'claude'], '--harness goes with oac compile'],
  ])('rejects %j with exit 2', async (args, message) => {
    const { code, err } = await oac(args)
    expect(code).toBe(2)
    expect(err).toContain(message)
  })
})

describe('oac compile on the playground', () => {
  let project: string
  beforeAll(async () => {
    project = await copyProject(join(repoRoot, 'playground'))
  })

  it('keeps the original tool command working word for word and prints a short tree', async () => {
    const { code, out, err } = await oac(['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'build', '--native-tools', '--root', project])
    // The six warnings: Codex shows every agent every tool, Copilot and Cline have no settings for the
    // approval rules and do not hand the model the chart's image (Cline: nor anyone the details), and the
    // target (a temp folder) is in no git repository, where Codex finds it from a subfolder.
    expect(err).toMatch(
      /^agents\/registry\.ts:\d+:\d+: warning \[tools-not-scoped\] Codex does not scope tools per agent: [^\n]+\n {2}fix: [^\n]+\nagents\/registry\.ts:\d+:\d+: warning \[approval-unsupported\] Config "prod"'s approval rules cannot reach GitHub Copilot: [^\n]+\n {2}fix: [^\n]+\nagents\/registry\.ts:\d+:\d+: warning \[approval-unsupported\] Config "prod"'s approval rules cannot reach Cline: [^\n]+\n {2}fix: [^\n]+\nagents\/registry\.ts:\d+:\d+: warning \[tool-result-text-only\] GitHub Copilot [^\n]+ \("forecast_chart"\)\. [^\n]+\n {2}fix: [^\n]+\nagents\/registry\.ts:\d+:\d+: warning \[tool-result-text-only\] Cline [^\n]+ \("forecast_chart"\)\. Cline [^\n]+ \("forecast_chart", "delete_report"\)\. [^\n]+\n {2}fix: [^\n]+\nwarning \[codex-no-project-root\] The target folder [^\n]+\/build is in no Codex project root [^\n]+\n {2}fix: [^\n]+\n$/,
    )
    expect(code).toBe(0)
    expect(out).toContain('oac: compiled agents/registry.ts:registry (config prod) into build/')
    expect(out).toMatch(/scripts\/\s+\d+ files/)
    for (const file of ['scripts/forecast.mjs', 'scripts/mcp_tools_server.cjs', 'prompts/planner.md', '.mcp.json', '.claude/agents/planner.md', '.codex/agents/planner.toml', '.opencode/tool/forecast.ts', '.pi/extensions/oac-tools.ts', '.omp/tools/forecast/index.ts']) {
      expect(existsSync(join(project, 'build', file)), file).toBe(true)
    }
    // The compiled script runs as the bash route documents it.
    const { stdout } = await execFileAsync('node', ['scripts/convert_units.mjs', '--value', '1', '--from', 'km', '--to', 'm'], { cwd: join(project, 'build') })
    expect(stdout.trim()).toBe('1 km = 1000.000 m')
  })

  it('--check passes on a fresh tree and lists what a changed definition would rewrite', async () => {
    const args = ['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'build', '--root', project]
    expect((await oac(args)).code).toBe(0)
    const clean = await oac([...args, '--check'])
    expect(clean.code).toBe(0)
    expect(clean.out).toContain('is up to date')
    const promptFile = join(project, 'agents/planner.md')
    const prompt = await readFile(promptFile, 'utf8')
    await writeFile(promptFile, `${prompt}\nAlways answer in French.\n`)
    try {
      const before = await readFile(join(project, 'build/prompts/planner.md'), 'utf8')
      const drift = await oac([...args, '--check'])
      expect(drift.code).toBe(1)
      expect(drift.out).toContain('is out of date')
      expect(drift.out).toContain('~ prompts/planner.md')
      expect(drift.out).toContain('~ .claude/agents/planner.md')
      expect(drift.out).not.toContain('reviewer')
      // --check writes nothing.
      expect(await readFile(join(project, 'build/prompts/planner.md'), 'utf8')).toBe(before)
    } finally {
      await writeFile(promptFile, prompt)
    }
  })

  it('--check fails on a generated file edited by hand, naming it, and leaves it alone', async () => {
    const args = ['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'build', '--root', project]
    expect((await oac(args)).code).toBe(0)
    await writeFile(join(project, 'build/prompts/planner.md'), 'edited by hand\n')
    const drift = await oac([...args, '--check'])
    expect(drift.code).toBe(1)
    expect(drift.err).toContain('prompts/planner.md')
    expect(drift.err).toContain('owned-file-edited')
    expect(drift.out).toContain('is out of date')
    expect(drift.out).toContain('~ prompts/planner.md  [owned-file-edited]')
    expect(drift.out).not.toContain('compile failed')
    expect(await readFile(join(project, 'build/prompts/planner.md'), 'utf8')).toBe('edited by hand\n')
  })

  it('--check lists every file that differs beside a hand edit, and the manifest that would change', async () => {
    const args = ['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'both', '--root', project]
    expect((await oac(args)).code).toBe(0)
    await writeFile(join(project, 'both/prompts/reviewer.md'), 'edited by hand\n')
    const promptFile = join(project, 'agents/planner.md')
    const prompt = await readFile(promptFile, 'utf8')
    await writeFile(promptFile, `${prompt}\nAlways answer in French.\n`)
    try {
      const drift = await oac([...args, '--check'])
      expect(drift.code).toBe(1)
      expect(drift.out).toContain('~ prompts/reviewer.md  [owned-file-edited]')
      expect(drift.out).toContain('~ prompts/planner.md\n')
      expect(drift.out).toContain('~ .oac/manifest.oac-tools.json')
      expect(drift.out).toContain('writing it would stop at the errors above')
    } finally {
      await writeFile(promptFile, prompt)
    }
  })

  it('--dry-run writes nothing', async () => {
    await rm(join(project, 'dry'), { recursive: true, force: true })
    const { code, out } = await oac(['compile', 'agents/registry.ts:registry', '--target', 'dry', '--root', project, '--dry-run', '--config', 'dev'])
    expect(code).toBe(0)
    expect(out).toContain('~ scripts/forecast.mjs')
    expect(out).toContain('~ .oac/manifest.oac-tools.json')
    expect(existsSync(join(project, 'dry'))).toBe(false)
  })

  it('--dry-run --reporter json says what would be written, not that it was', async () => {
    await rm(join(project, 'dry-json'), { recursive: true, force: true })
    const { code, out } = await oac(['compile', 'agents/registry.ts:registry', '--target', 'dry-json', '--root', project, '--dry-run', '--config', 'dev', '--reporter', 'json'])
    expect(code).toBe(0)
    const parsed = JSON.parse(out) as { files: { path: string; status: string }[] }
    expect(parsed.files.find((f) => f.path === 'scripts/forecast.mjs')?.status).toBe('would write')
    expect(parsed.files.find((f) => f.path === '.oac/manifest.oac-tools.json')?.status).toBe('would write')
    expect(parsed.files.filter((f) => f.status === 'written')).toEqual([])
    expect(existsSync(join(project, 'dry-json'))).toBe(false)
  })

  it('--reporter json prints the result as one JSON object', async () => {
    const { code, out } = await oac(['compile', 'agents/registry.ts:registry', '--config', 'dev', '--target', 'json-out', '--root', project, '--reporter', 'json'])
    expect(code).toBe(0)
    const parsed = JSON.parse(out) as { ok: boolean; agents: string[]; tools: string[]; files: { path: string; status: string }[] }
    expect(parsed.ok).toBe(true)
    expect(parsed.agents).toEqual(['planner', 'triager', 'reviewer'])
    expect(parsed.tools.sort()).toEqual(['convert_units', 'delete_report', 'forecast', 'forecast_chart', 'release_notes', 'sample_value', 'search_issues'])
    // The dev config selects claude and opencode only.
    expect(parsed.files.some((f) => f.path.startsWith('.codex/'))).toBe(false)
    expect(parsed.files.some((f) => f.path === '.opencode/agent/triager.md' && f.status === 'written')).toBe(true)
  })

  it('merges our MCP block into the project .codex/config.toml, the route for every Codex agent, unless --no-codex-config', async () => {
    const target = join(project, 'codex-main')
    const without = await oac(['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'codex-main', '--root', project, '--no-codex-config'])
    expect(without.code).toBe(0)
    expect(existsSync(join(target, '.codex/config.toml'))).toBe(false)
    const { code } = await oac(['compile', 'agents/registry.ts:registry', '--config', 'prod', '--target', 'codex-main', '--root', project])
    expect(code).toBe(0)
    const config = parse(await readFile(join(target, '.codex/config.toml'), 'utf8')) as { mcp_servers: Record<string, { command: string }> }
    expect(config.mcp_servers['oac-tools']?.command).toBe('node')
  })

  it('refuses to pick a config when the registry has configs and none is called default', async () => {
    const { code, err } = await oac(['compile', 'agents/registry.ts:registry', '--root', project, '--target', 'no-config', '--check'])
    expect(code).toBe(1)
    const line = (await readFile(join(project, 'agents/registry.ts'), 'utf8')).split('\n').findIndex((text) => text.includes('defineRegistry({')) + 1
    expect(err).toContain(`agents/registry.ts:${line}:`)
    expect(err).toContain('[config-required]')
    expect(err).toContain('(prod, dev)')
    expect(err).toContain('--config prod')
    expect(existsSync(join(project, 'no-config'))).toBe(false)
  })

  it('exits 1 with the diagnostics when the config is unknown', async () => {
    const { code, err } = await oac(['compile', 'agents/registry.ts:registry', '--config', 'staging', '--root', project, '--target', 'x'])
    expect(code).toBe(1)
    expect(err).toContain('staging')
    expect(err).toContain('prod')
    expect(err).toContain('dev')
  })
})

describe('oac compile --plugin', () => {
  let project: string
  beforeAll(async () => {
    project = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-cli-plugin-')
  })
  const compilePlugin = (dir: string, ...flags: string[]) => oac(['compile', 'agents/registry.ts:registry', '--root', project, '--plugin', dir, ...flags])
  const packageOf = async (dir: string) => JSON.parse(await readFile(join(project, dir, 'package.json'), 'utf8')) as Record<string, unknown>

  it("writes a plugin folder named after the project's package.json, and no project files", async () => {
    const { code, out } = await compilePlugin('plugin-default')
    expect(code).toBe(0)
    expect(out).toContain('into plugin-default/')
    expect(await packageOf('plugin-default')).toMatchObject({ name: 'oac-plugin-basic-fixture', version: '0.1.0' })
    expect(existsSync(join(project, 'plugin-default/scripts/weather.mjs'))).toBe(true)
    for (const file of ['.mcp.json', '.opencode', '.claude', 'prompts']) expect(existsSync(join(project, 'plugin-default', file)), file).toBe(false)
  })

  it('takes the name and version from --plugin-name and --plugin-version', async () => {
    expect((await compilePlugin('plugin-named', '--plugin-name', 'weather-tools', '--plugin-version', '2.0.0-beta.1')).code).toBe(0)
    expect(await packageOf('plugin-named')).toMatchObject({ name: 'weather-tools', version: '2.0.0-beta.1' })
  })

  it('refuses a name some harness would refuse, with one that works, and writes nothing', async () => {
    const { code, err } = await compilePlugin('plugin-bad-name', '--plugin-name', 'Weather_Tools')
    expect(code).toBe(1)
    expect(err).toContain('[plugin-name-invalid]')
    expect(err).toContain('"Weather_Tools"')
    expect(err).toContain('fix: Name it e.g. "weather-tools": --plugin-name weather-tools')
    expect(existsSync(join(project, 'plugin-bad-name'))).toBe(false)
  })

  it('refuses a version that is not semver, saying how to give one, and writes nothing', async () => {
    const { code, err } = await compilePlugin('plugin-bad-version', '--plugin-version', '1.2')
    expect(code).toBe(1)
    expect(err).toContain('[plugin-version-invalid]')
    expect(err).toContain('"1.2"')
    expect(err).toContain('--plugin-version 1.0.0')
    expect(existsSync(join(project, 'plugin-bad-version'))).toBe(false)
  })
})

describe('oac compile --scope user, then oac remove', () => {
  // The built CLI in a process of its own, whose home is a temp folder.
  const oacIn = (home: string, cwd: string, ...args: string[]) =>
    execFileAsync('node', [join(repoRoot, 'dist/cli.js'), ...args], { cwd, env: { PATH: process.env.PATH, HOME: home } }).then(
      ({ stdout, stderr }) => ({ code: 0, out: stdout, err: stderr }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, out: error.stdout, err: error.stderr }),
    )

  it("installs into the user's home, and remove takes it all out, leaving the user's settings as they were", async () => {
    const project = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-cli-user-')
    const home = await tempDir('oac-cli-home-')
    const settings = '{\n  // mine\n  "model": "opus"\n}\n'
    await mkdir(join(home, '.claude'))
    await writeFile(join(home, '.claude/settings.json'), settings)
    const installed = await oacIn(home, project, 'compile', 'agents/registry.ts:registry', '--scope', 'user', '--harness', 'claude,codex')
    expect(installed.code, installed.err).toBe(0)
    expect(installed.out).toContain(`into ${home}/`)
    expect(existsSync(join(home, '.local/share/oac/oac-tools/weather.mjs'))).toBe(true)
    expect(JSON.parse(await readFile(join(home, '.claude.json'), 'utf8'))).toMatchObject({ mcpServers: { 'oac-tools': { command: 'node' } } })
    // Nothing lands in the project it was run from.
    for (const file of ['.mcp.json', '.claude', 'scripts', '.oac']) expect(existsSync(join(project, file)), file).toBe(false)

    const preview = await oacIn(home, project, 'remove', '--scope', 'user', '--dry-run')
    expect(preview.out).toContain('would remove oac-tools from')
    expect(existsSync(join(home, '.claude.json'))).toBe(true)
    const removed = await oacIn(home, project, 'remove', '--scope', 'user')
    expect(removed.code, removed.err).toBe(0)
    expect(removed.out).toContain('removed oac-tools from')
    expect(await readdir(home, { recursive: true })).toEqual(['.claude', '.claude/settings.json'])
    expect(await readFile(join(home, '.claude/settings.json'), 'utf8')).toBe(settings)
    expect((await oacIn(home, project, 'remove', '--scope', 'user')).out).toBe(`oac: ${home}/ holds nothing of oac-tools\n`)
  })

  it('names what a target holds when it holds nothing of the server to remove', async () => {
    const project = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-cli-owners-')
    const home = await tempDir('oac-cli-home-')
    expect((await oacIn(home, project, 'compile', 'agents/registry.ts:registry', '--scope', 'user', '--harness', 'pi', '--server-name', 'weather-tools')).code).toBe(0)
    const removed = await oacIn(home, project, 'remove', '--scope', 'user')
    expect(removed.code).toBe(0)
    expect(removed.out).toBe(`oac: ${home}/ holds nothing of oac-tools (it holds weather-tools: name one with --server-name)\n`)
    expect((await oacIn(home, project, 'remove', '--scope', 'user', '--server-name', 'weather-tools')).out).toContain('removed weather-tools from')
  })
})
