import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import { compile, type CompileResult } from '../../src/api.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

/*
 * What a plugin folder holds for the Claude Code format (src/emit/plugin/claude.ts), and for the Copilot
 * CLI, which installs it: test/fixtures/plugin-claude compiled with `plugin` through the real api. That
 * Claude Code and Copilot load it is test/harness/plugin-claude.test.ts.
 */

const FIXTURE = join(repoRoot, 'test/fixtures/plugin-claude')
type Json = Record<string, unknown>

let source: string
let folder: string
let result: CompileResult

async function compiled(harnesses: Array<'claude' | 'copilot'>): Promise<{ folder: string; result: CompileResult }> {
  const target = await tempDir('oac-plugin-folder-')
  return { folder: target, result: await compile({ root: source, registry: 'agents/registry.ts:registry', target, harnesses, plugin: {} }) }
}

const json = async (path: string) => JSON.parse(await readFile(join(folder, path), 'utf8')) as Json
const text = (path: string) => readFile(join(folder, path), 'utf8')

/** A component path of a manifest: relative to the plugin's root, as `./...`, inside it, and there. */
function expectInFolder(path: unknown): void {
  expect(path).toMatch(/^\.\/(?!.*\.\.)/)
  expect(existsSync(join(folder, path as string)), path as string).toBe(true)
}

/** The frontmatter of a Markdown file. */
function frontmatter(markdown: string): Json {
  return parseYaml(/^---\n([\s\S]*?)\n---\n/.exec(markdown)![1]!) as Json
}

beforeAll(async () => {
  source = await copyProject(FIXTURE, 'oac-plugin-claude-src-')
  ;({ folder, result } = await compiled(['claude', 'copilot']))
})

describe('the Claude Code format of a plugin folder', () => {
  it('names the plugin as package.json does, in the manifest, the marketplace and package.json', async () => {
    const identity = { name: 'trip-kit', version: '0.3.0', description: 'Trip planning tools, agents and a guard.' }
    expect(await json('.claude-plugin/plugin.json')).toMatchObject(identity)
    expect(await json('package.json')).toMatchObject(identity)
    const marketplace = await json('.claude-plugin/marketplace.json')
    expect(marketplace).toMatchObject({ name: identity.name, owner: { name: identity.name } })
    // One plugin, the folder itself: `claude plugin marketplace add <dir>` then `install trip-kit@trip-kit`.
    expect(marketplace.plugins).toEqual([{ ...identity, source: './' }])
  })

  it("carries package.json's author, license, repository, homepage and keywords, each in the shape its manifest takes", async () => {
    const metadata = {
      author: { name: 'Ada Field', email: 'ada@example.com', url: 'https://example.com/ada' },
      license: 'MIT',
      homepage: 'https://example.com/trip-kit',
      keywords: ['travel', 'weather'],
    }
    // Claude Code's and the Copilot CLI's manifests take the repository as a URL ("github:example/trip-kit" in package.json).
    for (const path of ['.claude-plugin/plugin.json', '.github/plugin/plugin.json']) expect(await json(path), path).toMatchObject({ ...metadata, repository: 'https://github.com/example/trip-kit' })
    // package.json as npm normalises it.
    expect(await json('package.json')).toMatchObject({ ...metadata, repository: { type: 'git', url: 'git+https://github.com/example/trip-kit.git' } })
  })

  it("takes the metadata the plugin option gives over package.json's, field by field", async () => {
    const target = await tempDir('oac-plugin-folder-')
    const plugin = { author: 'Bo Stone <bo@example.com>', repository: { type: 'git', url: 'git@gitlab.com:bo/trip-kit.git' } }
    await compile({ root: source, registry: 'agents/registry.ts:registry', target, harnesses: ['claude'], plugin })
    const manifest = JSON.parse(await readFile(join(target, '.claude-plugin/plugin.json'), 'utf8')) as Json
    expect(manifest).toMatchObject({ author: { name: 'Bo Stone', email: 'bo@example.com' }, repository: 'https://gitlab.com/bo/trip-kit', license: 'MIT', keywords: ['travel', 'weather'] })
  })

  it("points every component field at files of its own folder, claude/, which are there, and names no skills (Claude reads the root's)", async () => {
    const manifest = await json('.claude-plugin/plugin.json')
    // `agents` and `commands` are always set: they replace Claude's default agents/ and commands/ (another format's).
    expect(manifest.agents).toEqual(['./claude/agents/planner.md', './claude/agents/packer.md'])
    expect(manifest.commands).toEqual(['./claude/commands/plan-trip.md'])
    expect(manifest.skills).toBeUndefined()
    expect(manifest.hooks).toBe('./claude/hooks.json')
    for (const path of [...(manifest.agents as string[]), ...(manifest.commands as string[]), manifest.hooks]) expectInFolder(path)
    expectInFolder('./skills/trip-reports/SKILL.md')
  })

  it('starts the MCP server with plain node from ${CLAUDE_PLUGIN_ROOT}, a script that is in the folder', async () => {
    const { mcpServers } = await json('.claude-plugin/plugin.json')
    expect(mcpServers).toEqual({ 'oac-tools': { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/scripts/mcp_tools_server.cjs'] } })
    expectInFolder('./scripts/mcp_tools_server.cjs')
  })

  it("writes each agent's Claude file without hooks (Claude ignores them in a plugin), its tools by the plugin's names", async () => {
    const packer = await text('claude/agents/packer.md')
    const fields = frontmatter(packer)
    expect(fields).toMatchObject({ name: 'packer', tools: 'mcp__plugin_trip-kit_oac-tools__pack', model: 'inherit' })
    expect(fields).not.toHaveProperty('hooks')
    expect(packer).toContain('Call the tool `mcp__plugin_trip-kit_oac-tools__pack`')
    expect(packer).not.toContain('node scripts/')
  })

  it("runs every hook, an agent's own too, from ${CLAUDE_PLUGIN_ROOT}, and says so at compile time", async () => {
    const { hooks } = await json('claude/hooks.json')
    expect(hooks).toEqual({
      PreToolUse: [{ matcher: '^(?:mcp__plugin_trip-kit_oac-tools__forecast)$', hooks: [{ type: 'command', command: 'node "${CLAUDE_PLUGIN_ROOT}/scripts/hooks/guard.mjs" --harness claude', timeout: 15 }] }],
      PostToolUse: [{ matcher: '^(?:mcp__plugin_trip-kit_oac-tools__pack)$', hooks: [{ type: 'command', command: 'node "${CLAUDE_PLUGIN_ROOT}/scripts/hooks/packer-only.mjs" --harness claude', timeout: 15 }] }],
    })
    expectInFolder('./scripts/hooks/guard.mjs')
    expectInFolder('./scripts/hooks/packer-only.mjs')
    const warning = result.diagnostics.find((d) => d.code === 'hook-unsupported' && d.message.startsWith('Claude Code'))
    expect(warning?.message).toContain('from a plugin')
    expect(warning?.message).toContain('"packer-only"')
  })

  it('runs a command as the agent by the name Claude gives a plugin agent', async () => {
    expect(frontmatter(await text('claude/commands/plan-trip.md'))).toMatchObject({ context: 'fork', agent: 'trip-kit:planner', 'argument-hint': '<city>' })
  })

  it('carries no approval rules (a plugin brings no permissions), and says so at compile time', async () => {
    const warning = result.diagnostics.find((d) => d.code === 'plugin-unsupported' && d.message.startsWith('Claude Code'))
    expect(warning?.message).toContain('a plugin brings no permissions')
    expect(warning?.fix).toContain('mcp__plugin_trip-kit_oac-tools__<tool>')
    expect(await text('.claude-plugin/plugin.json')).not.toContain('permissions')
  })

  it('writes no project file, and no absolute path', async () => {
    for (const path of ['.mcp.json', '.claude', '.github/agents', '.github/hooks', 'agents', 'commands', 'hooks']) expect(existsSync(join(folder, path)), path).toBe(false)
    for (const path of ['.claude-plugin/plugin.json', '.claude-plugin/marketplace.json', '.github/plugin/plugin.json', 'claude/hooks.json', 'copilot/hooks.json']) {
      const content = await text(path)
      expect(content).not.toContain(source)
      expect(content).not.toContain(folder)
    }
  })
})

describe("the Copilot CLI's manifest beside it", () => {
  it('.github/plugin/plugin.json: its own agents and hooks, Claude\'s commands, the root\'s skills, the server from ${PLUGIN_ROOT}', async () => {
    const manifest = await json('.github/plugin/plugin.json')
    expect(manifest).toMatchObject({ name: 'trip-kit', version: '0.3.0' })
    expect(manifest.agents).toEqual(['./copilot/agents/planner.agent.md', './copilot/agents/packer.agent.md'])
    expect(manifest.skills).toEqual(['./skills/trip-reports'])
    expect(manifest.commands).toEqual((await json('.claude-plugin/plugin.json')).commands)
    expect(manifest.hooks).toBe('./copilot/hooks.json')
    for (const path of [...(manifest.agents as string[]), ...(manifest.skills as string[]), ...(manifest.commands as string[]), manifest.hooks]) expectInFolder(path)
    // `cwd: "."`: started in Copilot's working folder (the user's), not the plugin's.
    expect(manifest.mcpServers).toEqual({ 'oac-tools': { command: 'node', args: ['${PLUGIN_ROOT}/scripts/mcp_tools_server.cjs'], cwd: '.' } })
  })

  it("lists each agent's tools as Copilot names them, with no shell tool (a plugin has no bash route)", async () => {
    const planner = await text('copilot/agents/planner.agent.md')
    expect(frontmatter(planner)).toMatchObject({ name: 'planner', tools: ['oac-tools/forecast'] })
    expect(planner).toContain('Call the tool `oac-tools-forecast`')
  })

  it('hooks of its own shape, each command from ${PLUGIN_ROOT}', async () => {
    const hooks = await json('copilot/hooks.json')
    expect(hooks.version).toBe(1)
    expect((hooks.hooks as Json).preToolUse).toEqual([{ type: 'command', bash: 'node "${PLUGIN_ROOT}/scripts/hooks/guard.mjs" --harness copilot', timeoutSec: 15, matcher: '^(?:oac-tools-forecast)$' }])
  })

  it('is not written when Copilot is not selected', async () => {
    const claudeOnly = await compiled(['claude'])
    expect(existsSync(join(claudeOnly.folder, '.claude-plugin/plugin.json'))).toBe(true)
    expect(existsSync(join(claudeOnly.folder, '.github'))).toBe(false)
    expect(existsSync(join(claudeOnly.folder, 'copilot'))).toBe(false)
  })
})
