import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, symlink } from 'node:fs/promises'
import { join, posix } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { compile } from '../../src/api.js'
import { harness } from '../../src/compile/harnesses/index.js'
import type { Diagnostic } from '../../src/diagnostics.js'
import { copyProject, repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

// What the plugin folder holds for Codex, pi and oh-my-pi, from a real build of the fixture: every
// path a manifest names is in the folder, nothing is absolute, no project file is written. The real
// CLIs install it in test/harness/plugin-codex-pi.test.ts.

const plugin = { name: 'word-tools', version: '2.1.0', description: 'Counts words.' }
let root: string
let out: string
let diagnostics: Diagnostic[]

/** Every file of the folder, relative to it. */
async function filesOf(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries.filter((entry) => entry.isFile()).map((entry) => posix.relative(dir, join(entry.parentPath, entry.name)))
}

const read = (path: string) => readFile(join(out, path), 'utf8')
const json = async <T>(path: string) => JSON.parse(await read(path)) as T

/** The relative specifier a generated file imports or runs, resolved from that file. */
function fromFile(file: string, specifier: string): string {
  return posix.join(posix.dirname(file), specifier)
}

beforeAll(async () => {
  root = await copyProject(join(repoRoot, 'test/fixtures/plugin-folder'), 'oac-plugin-codex-pi-')
  out = join(root, 'out')
  diagnostics = (await compile({ root, registry: 'agents/registry.ts:registry', target: 'out', plugin, harnesses: ['codex', 'pi', 'omp', 'gemini'] })).diagnostics
})

describe('the folder as a whole', () => {
  it('writes no project file, and no file names the folder it was built in', async () => {
    for (const folder of ['.codex', '.pi', '.omp', '.agents/skills']) expect(existsSync(join(out, folder)), folder).toBe(false)
    for (const folder of ['.codex', '.pi', '.omp', '.agents']) expect(existsSync(join(root, folder)), folder).toBe(false)
    for (const file of await filesOf(out)) {
      if (file.endsWith('.map')) continue
      expect(await read(file), file).not.toContain(root)
    }
  })
})

describe('Codex', () => {
  it('has a manifest whose paths start with ./ and are all in the folder, and a marketplace of the plugin at ./', async () => {
    const manifest = await json<Record<string, string>>('.codex-plugin/plugin.json')
    expect(manifest).toMatchObject(plugin)
    for (const key of ['skills', 'mcpServers', 'hooks']) {
      expect(manifest[key], key).toMatch(/^\.\//)
      expect(existsSync(join(out, manifest[key]!)), key).toBe(true)
    }
    // package.json's metadata, in the shape Codex's manifest takes (as Claude Code's): the repository a URL.
    expect(manifest).toMatchObject({ author: { name: 'Word Team', url: 'https://example.com/words' }, license: 'MIT', repository: 'https://github.com/example/word-tools', keywords: ['words'] })
    const marketplace = await json<{ name: string; plugins: Array<{ name: string; source: { source: string; path: string } }> }>('.agents/plugins/marketplace.json')
    expect(marketplace).toEqual({ name: 'word-tools', plugins: [{ name: 'word-tools', source: { source: 'local', path: './' } }] })
  })

  it("keeps its skills and commands apart from the root skills/ (Gemini CLI's, oh-my-pi's), a command being a skill only the user starts, as $<plugin>:<command>", async () => {
    const files = await filesOf(join(out, 'codex/skills'))
    expect(files.sort()).toEqual(['count/SKILL.md', 'count/agents/openai.yaml', 'counting/SKILL.md', 'counting/scripts/word_count.mjs', 'tidy/SKILL.md', 'tidy/agents/openai.yaml'])
    expect(await read('codex/skills/count/SKILL.md')).toContain('the text after `$word-tools:count`')
    expect(await read('codex/skills/tidy/agents/openai.yaml')).toContain('allow_implicit_invocation: false')
    // The skill's launcher reaches the plugin's script from its own folder.
    const launcher = await read('codex/skills/counting/scripts/word_count.mjs')
    const up = launcher.match(/new URL\("([./]+)", import\.meta\.url\)/)![1]!
    expect(existsSync(join(out, fromFile('codex/skills/counting/scripts/word_count.mjs', up), 'scripts/word_count.mjs'))).toBe(true)
  })

  it("starts its MCP server in the user's folder, from the plugin's copy in Codex's cache, by this name and version", async () => {
    const { mcpServers } = await json<{ mcpServers: Record<string, { command: string; args: string[]; env_vars: string[]; enabled_tools: string[] }> }>('codex/mcp.json')
    const server = mcpServers['oac-tools']!
    expect(server).not.toHaveProperty('cwd')
    expect(server.command).toBe('node')
    expect(server.args[1]).toContain('join("word-tools", "2.1.0", "scripts/mcp_tools_server.cjs")')
    expect(server.args[1]).toContain("'plugins', 'cache'")
    expect(server.env_vars).toContain('CODEX_HOME')
    expect(server.enabled_tools).toEqual(['word_count', 'delete_note'])
    expect(existsSync(join(out, 'scripts/mcp_tools_server.cjs'))).toBe(true)
  })

  it("starts the server with a launcher that finds the installed copy in Codex's cache under any marketplace, and the server's tools run in the folder it was started in", async () => {
    const { mcpServers } = await json<{ mcpServers: Record<string, { command: string; args: string[] }> }>('codex/mcp.json')
    const { command, args } = mcpServers['oac-tools']!
    const codexHome = await tempDir('oac-codex-home-')
    const work = await tempDir('oac-codex-work-')
    // Nothing installed: the launcher says where it looked.
    const missing = spawnSync(command, args, { cwd: work, env: { PATH: process.env.PATH, CODEX_HOME: codexHome }, encoding: 'utf8' })
    expect(missing.status).toBe(1)
    expect(missing.stderr).toContain(`not found in any marketplace of ${join(codexHome, 'plugins/cache')}`)
    // Installed from a marketplace of another name, as Codex lays out its cache.
    await mkdir(join(codexHome, 'plugins/cache/team-tools/word-tools'), { recursive: true })
    await symlink(out, join(codexHome, 'plugins/cache/team-tools/word-tools/2.1.0'), 'dir')
    const client = new Client({ name: 'codex-launcher-test', version: '1.0.0' })
    await client.connect(new StdioClientTransport({ command, args, cwd: work, env: { PATH: process.env.PATH!, CODEX_HOME: codexHome }, stderr: 'pipe' }))
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['delete_note', 'word_count'])
      const result = await client.callTool({ name: 'word_count', arguments: { text: 'one two three' } })
      expect(result.content).toEqual([{ type: 'text', text: `3 words, counted in ${work}.` }])
    } finally {
      await client.close()
    }
  })

  it('runs its hooks from ${PLUGIN_ROOT}, matching the tool by the name Codex shows hooks', async () => {
    const { hooks } = await json<{ hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> }>('codex/hooks.json')
    expect(Object.keys(hooks).sort()).toEqual(['PreToolUse', 'SessionStart'])
    const [group] = hooks.PreToolUse!
    expect(group!.matcher).toBe('^(?:mcp__oac_tools__delete_note)$')
    expect(group!.hooks[0]!.command).toBe('node "${PLUGIN_ROOT}/scripts/hooks/keep.mjs" --harness codex')
    expect(existsSync(join(out, 'scripts/hooks/keep.mjs'))).toBe(true)
  })

  it('names its server files even without tools or hooks, so that Codex reads no other format’s defaults', async () => {
    const bare = await copyProject(join(repoRoot, 'test/fixtures/plugin-folder'), 'oac-plugin-codex-bare-')
    await compile({ root: bare, registry: 'agents/registry.ts:bare', target: 'out', plugin, harnesses: ['codex'] })
    const manifest = await json<Record<string, string>>('.codex-plugin/plugin.json')
    const bareManifest = JSON.parse(await readFile(join(bare, 'out/.codex-plugin/plugin.json'), 'utf8')) as Record<string, string>
    const { author, license, repository, keywords } = manifest
    expect(bareManifest).toEqual({ ...plugin, author, license, repository, keywords, mcpServers: manifest.mcpServers, hooks: manifest.hooks })
    expect(JSON.parse(await readFile(join(bare, 'out/codex/mcp.json'), 'utf8'))).toEqual({ mcpServers: {} })
    expect(JSON.parse(await readFile(join(bare, 'out/codex/hooks.json'), 'utf8'))).toEqual({ hooks: {} })
  })

  it('has no agents, and compile says so for Codex alone', () => {
    const warnings = diagnostics.filter((d) => d.code === 'plugin-unsupported' && d.message.includes("the plugin's agents"))
    expect(warnings.map((d) => d.message.split(' cannot')[0])).toEqual(['Codex'])
    expect(warnings[0]!.fix).toContain('without --plugin')
  })

  it('shows the model the server under its own name', () => {
    expect(harness('codex').plugin.serverName('word-tools', 'oac-tools')).toBe('oac-tools')
  })
})

describe('pi', () => {
  it("is a pi package: package.json's pi key names folders and files under pi/, all in the folder", async () => {
    const pkg = await json<{ name: string; version: string; keywords: string[]; pi: Record<string, string[]> }>('package.json')
    expect(pkg).toMatchObject({ name: 'word-tools', version: '2.1.0' })
    expect(pkg.keywords).toEqual(['words', 'pi-package'])
    expect(pkg.pi).toEqual({
      extensions: ['./pi/extensions/oac-tools.ts', './pi/extensions/oac-tools-hooks.ts'],
      skills: ['./pi/skills'],
      prompts: ['./pi/prompts'],
    })
    for (const path of Object.values(pkg.pi).flat()) expect(existsSync(join(out, path)), path).toBe(true)
    expect((await filesOf(join(out, 'pi/skills'))).sort()).toEqual(['counting/SKILL.md', 'counting/scripts/word_count.mjs', 'tidy/SKILL.md'])
    expect(await read('pi/skills/tidy/SKILL.md')).toContain('disable-model-invocation: true')
    expect(await read('pi/prompts/count.md')).toContain('Count the words of $ARGUMENTS.')
  })

  it('finds the scripts relative to its extensions', async () => {
    const tools = await read('pi/extensions/oac-tools.ts')
    for (const [, script] of tools.matchAll(/runTool\("([^"]+)"/g)) expect(existsSync(join(out, fromFile('pi/extensions/oac-tools.ts', script!))), script).toBe(true)
    const hooks = await read('pi/extensions/oac-tools-hooks.ts')
    const loads = [...hooks.matchAll(/load\("([^"]+)"\)/g)].map((match) => match[1]!)
    expect(loads).toEqual(['../../scripts/hooks/keep.mjs', '../../scripts/hooks/hello.mjs'])
    for (const script of loads) expect(existsSync(join(out, fromFile('pi/extensions/oac-tools-hooks.ts', script)))).toBe(true)
  })
})

describe('oh-my-pi', () => {
  it("is an omp plugin package: package.json's omp key names a tool factory per tool and the hooks' extension", async () => {
    const { omp } = await json<{ omp: Record<string, string[]> }>('package.json')
    expect(omp).toEqual({
      tools: ['./omp/tools/word_count/index.ts', './omp/tools/delete_note/index.ts'],
      extensions: ['./omp/extensions/oac-tools-hooks.ts'],
    })
    for (const path of Object.values(omp).flat()) expect(existsSync(join(out, path)), path).toBe(true)
    const factory = await read('omp/tools/word_count/index.ts')
    const [, script] = factory.match(/runTool\("([^"]+)"/)!
    expect(existsSync(join(out, fromFile('omp/tools/word_count/index.ts', script!)))).toBe(true)
    expect(harness('omp').plugin.format).toBe('omp')
  })

  it("shares the root skills/ with Gemini CLI, written once for both, and puts its markdown commands in commands/", async () => {
    expect((await filesOf(join(out, 'skills'))).sort()).toEqual(['counting/SKILL.md', 'counting/scripts/word_count.mjs', 'tidy/SKILL.md'])
    expect(await read('skills/tidy/SKILL.md')).toContain('disable-model-invocation: true')
    expect(await read('commands/count.md')).toContain('argument-hint: <text>')
  })
})
