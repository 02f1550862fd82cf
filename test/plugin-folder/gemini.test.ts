import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile, type CompileResult } from '../../src/api.js'
import type { Harness } from '../../src/define/types.js'
import { copyProject, repoRoot } from '../util/project.js'
import { run } from '../util/process.js'
import { tempDir } from '../util/temp.js'

/*
 * What the plugin folder holds for the Gemini CLI extension format (Gemini CLI, and Qwen Code, which
 * installs the same folder): the fixture compiled with `plugin` through the real pipeline (bundler
 * included), and the folder read back. test/harness/plugin-gemini.test.ts installs it in the real CLIs.
 */

const FIXTURE = resolve(repoRoot, 'test/fixtures/plugin-gemini')
const SERVER = 'oac-tools'

interface Folder {
  project: string
  dir: string
  result: CompileResult
  files: string[]
  read(path: string): Promise<string>
  json(path: string): Promise<Record<string, unknown>>
}

async function pluginFolder(harnesses: Harness[]): Promise<Folder> {
  const project = await copyProject(FIXTURE, 'oac-plugin-gemini-')
  const dir = await tempDir('oac-plugin-gemini-dir-')
  const result = await compile({ root: project, registry: 'agents/registry.ts:registry', config: 'test', harnesses, plugin: {}, target: dir })
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
  const read = (path: string) => readFile(join(dir, path), 'utf8')
  return { project, dir, result, files: files.sort(), read, json: async (path) => JSON.parse(await read(path)) as Record<string, unknown> }
}

/** A path written with Gemini's variables, as the CLI expands them for the folder at `dir`. */
function expanded(path: string, dir: string): string {
  return path.replaceAll('${extensionPath}', dir).replaceAll('${/}', '/')
}

describe('the Gemini CLI extension of a plugin folder, for Gemini CLI and Qwen Code', () => {
  let folder: Folder
  beforeAll(async () => {
    folder = await pluginFolder(['gemini', 'qwen'])
  })

  it("holds Gemini's manifest and fixed folders, Qwen's manifest, the shared package.json and the bundled scripts, and nothing of a project", () => {
    for (const path of ['gemini-extension.json', 'qwen-extension.json', 'package.json', 'agents/planner.md', 'commands/forecast.toml', 'skills/weather-reports/SKILL.md', 'hooks/hooks.json', 'policies/approvals.toml', 'scripts/mcp_tools_server.cjs']) {
      expect(folder.files).toContain(path)
    }
    // No project files: neither in the folder nor in the project it was compiled from.
    expect(folder.files.filter((path) => /^(\.gemini|\.qwen|\.agents|\.claude)\/|^\.mcp\.json$/.test(path))).toEqual([])
    for (const path of ['.gemini', '.qwen', '.agents', 'scripts']) expect(existsSync(join(folder.project, path)), path).toBe(false)
  })

  it('names the extension as package.json does, and starts the server by path from the extension folder, its variables forwarded', async () => {
    const manifest = await folder.json('gemini-extension.json')
    expect(manifest).toMatchObject({ name: 'weather-kit', version: '1.2.0', description: 'Weather tools and a planner, for every coding agent.' })
    const server = (manifest.mcpServers as Record<string, { command: string; args: string[]; env: Record<string, string>; cwd?: string }>)[SERVER]!
    expect(server.command).toBe('node')
    expect(server.args).toHaveLength(1)
    expect(server.args[0]!.startsWith('${extensionPath}${/}')).toBe(true)
    expect(existsSync(expanded(server.args[0]!, folder.dir))).toBe(true)
    expect(server.env).toEqual({ FORECAST_UNITS: '${FORECAST_UNITS}' })
    // No cwd: the server starts where the CLI runs, the user's project, which tools see as ctx.cwd.
    expect(server.cwd).toBeUndefined()
  })

  it('gives Qwen Code the same server and its own hooks, under its event names', async () => {
    const gemini = await folder.json('gemini-extension.json')
    const qwen = await folder.json('qwen-extension.json')
    expect(qwen.mcpServers).toEqual(gemini.mcpServers)
    expect({ name: qwen.name, version: qwen.version }).toEqual({ name: gemini.name, version: gemini.version })
    const hooks = qwen.hooks as Record<string, Array<{ matcher: string; hooks: Array<{ command: string }> }>>
    expect(Object.keys(hooks)).toEqual(['PreToolUse'])
    expect(hooks.PreToolUse![0]!.matcher).toBe(`^(?:mcp__${SERVER}__delete_report)$`)
    expect(hooks.PreToolUse![0]!.hooks[0]!.command).toBe('node "${extensionPath}/scripts/hooks/guard.mjs" --harness qwen')
  })

  it("registers the hook in hooks/hooks.json under Gemini's event, matched by the tool's Gemini name, its script found from the extension folder", async () => {
    const { hooks } = (await folder.json('hooks/hooks.json')) as { hooks: Record<string, Array<{ matcher: string; hooks: Array<{ type: string; command: string; name: string }> }>> }
    expect(Object.keys(hooks)).toEqual(['BeforeTool'])
    const [group] = hooks.BeforeTool!
    expect(group!.matcher).toBe(`^(?:mcp_${SERVER}_delete_report)$`)
    expect(group!.hooks[0]).toMatchObject({ type: 'command', name: 'guard' })
    const script = /^node -e '[^']+' "([^"]+)" --harness gemini$/.exec(group!.hooks[0]!.command)?.[1]
    expect(script).toBe('${extensionPath}/scripts/hooks/guard.mjs')
    expect(existsSync(expanded(script!, folder.dir))).toBe(true)
  })

  it('runs the hook from a shell as Gemini CLI does, and does nothing where Claude Code runs the same file (CLAUDE_PLUGIN_ROOT set)', async () => {
    const { hooks } = (await folder.json('hooks/hooks.json')) as { hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>> }
    const command = expanded(hooks.BeforeTool![0]!.hooks[0]!.command, folder.dir)
    const event = JSON.stringify({ hook_event_name: 'BeforeTool', session_id: 's', cwd: folder.project, tool_name: `mcp_${SERVER}_delete_report`, tool_input: { name: 'prod-1' } })
    const { CLAUDE_PLUGIN_ROOT: _unset, ...env } = process.env
    const gemini = await run('sh', ['-c', command], { cwd: folder.project, stdin: event, env })
    expect(gemini.code).toBe(0)
    expect(JSON.parse(gemini.stdout)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('prod reports are kept') })
    // Claude Code leaves ${extensionPath} to the shell (empty) and sets its own root variable.
    const claude = await run('sh', ['-c', hooks.BeforeTool![0]!.hooks[0]!.command], { cwd: folder.project, stdin: event, env: { ...env, CLAUDE_PLUGIN_ROOT: folder.dir } })
    expect([claude.code, claude.stdout, claude.stderr]).toEqual([0, '', ''])
  })

  it('writes the ask rule as a policy of the extension, and no allow rule (Gemini drops those), with a warning for each harness', async () => {
    const policies = parseToml(await folder.read('policies/approvals.toml')) as { rule: Array<{ toolName: string[]; decision: string }> }
    expect(policies.rule).toEqual([expect.objectContaining({ toolName: [`mcp_${SERVER}_delete_report`], decision: 'ask_user' })])
    const warnings = folder.result.diagnostics.filter((d) => d.code === 'plugin-unsupported').map((d) => d.message)
    expect(warnings).toEqual([
      expect.stringMatching(/^Gemini CLI cannot take the plugin's approval rules that let a tool run unasked: /),
      expect.stringMatching(/^Qwen Code cannot take the plugin's agents: .*mcp_oac-tools_<tool>/),
      expect.stringMatching(/^Qwen Code cannot take the plugin's approval rules that let a tool run unasked: /),
      expect.stringMatching(/^Qwen Code cannot take the plugin's approval rules that make a tool always ask: /),
    ])
  })

  it("writes the agent as Gemini CLI's project agent file, its tools by the names the model sees", async () => {
    const agent = await folder.read('agents/planner.md')
    expect(agent).toMatch(new RegExp(`^---\\nname: planner\\ndescription: Plans field work around the weather\\.\\ntools:\\n  - mcp_${SERVER}_forecast\\n  - mcp_${SERVER}_delete_report\\n---\\n`))
    expect(agent).toContain(`Call the tool \`mcp_${SERVER}_forecast\``)
    // The same text the project emitter writes for an agent whose tools are all native calls.
    const project = await tempDir('oac-plugin-gemini-project-')
    await compile({ root: folder.project, registry: 'agents/registry.ts:registry', config: 'test', harnesses: ['gemini'], target: project })
    expect(agent).toBe(await readFile(join(project, '.gemini/agents/planner.md'), 'utf8'))
  })

  it("writes the command as Gemini's TOML and the skill in skills/", async () => {
    expect(parseToml(await folder.read('commands/forecast.toml'))).toEqual({ description: 'Forecast for a city, in two lines', prompt: 'Get the forecast for {{args}} and summarise it in two lines.' })
    expect(await folder.read('skills/weather-reports/SKILL.md')).toMatch(/^---\nname: weather-reports\ndescription: Writes short weather reports/)
  })

  it('holds no absolute path: every path inside resolves from the extension folder', async () => {
    for (const path of folder.files.filter((file) => !file.startsWith('scripts/'))) {
      const text = await folder.read(path)
      expect(text, path).not.toContain(folder.dir)
      expect(text, path).not.toContain(folder.project)
    }
  })
})

describe('the Gemini CLI extension for Gemini CLI alone', () => {
  it("has no Qwen manifest, and warns only of Gemini's limit", async () => {
    const folder = await pluginFolder(['gemini'])
    expect(folder.files).toContain('gemini-extension.json')
    expect(folder.files).not.toContain('qwen-extension.json')
    expect(folder.result.diagnostics.filter((d) => d.code === 'plugin-unsupported')).toHaveLength(1)
  })
})
