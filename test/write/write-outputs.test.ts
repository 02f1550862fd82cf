import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { MergeFile, OutputFile, OwnedFile } from '../../src/emit/types.js'
import { isOwnWrite, ownWrites, type WriteOptions, writeOutputs } from '../../src/write/index.js'

let target: string
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), 'oac-'))
})
afterEach(async () => {
  await rm(target, { recursive: true, force: true })
})

const owned = (path: string, content: string, executable?: boolean): OwnedFile => ({ kind: 'owned', path, content, executable })
const mcpJson = (name = 'oac-tools', command = 'node'): MergeFile => ({
  kind: 'merge',
  path: '.mcp.json',
  format: 'json',
  entries: [{ keyPath: ['mcpServers', name], value: { command, args: ['scripts/mcp_tools_server.mjs'] } }],
})
const agentToml = (name = 'oac-tools'): MergeFile => ({
  kind: 'merge',
  path: '.codex/agents/planner.toml',
  format: 'toml',
  entries: [
    { keyPath: ['name'], value: 'planner' },
    { keyPath: ['mcp_servers', name], value: { command: 'node' } },
  ],
})
const tree = (tool: string): OutputFile[] => [
  owned(`scripts/${tool}.mjs`, `// ${tool}\n`, true),
  owned(`.opencode/tool/${tool}.ts`, `export default '${tool}'\n`),
  owned('prompts/planner.md', `Use ${tool}.\n`),
  mcpJson(),
]

const options = (extra: Partial<WriteOptions> = {}): WriteOptions => ({ target, mode: 'write', force: false, owner: 'oac-tools', ...extra })
const read = (path: string): Promise<string> => readFile(join(target, path), 'utf8')
const exists = (path: string): Promise<boolean> =>
  lstat(join(target, path)).then(
    () => true,
    () => false,
  )

/** Every file and folder under the target with its content, to prove "nothing changed". */
async function snapshot(): Promise<Record<string, string>> {
  const entries = await readdir(target, { recursive: true, withFileTypes: true })
  const out: Record<string, string> = {}
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name)
    out[path.slice(target.length + 1)] = entry.isDirectory() ? '<dir>' : await readFile(path, 'utf8')
  }
  return out
}

describe('writeOutputs', () => {
  it('writes files, folders, merges and a manifest; a second run changes nothing on disk', async () => {
    const first = await writeOutputs(tree('forecast'), options())
    expect(first.diagnostics).toEqual([])
    expect(first.written).toEqual(['.mcp.json', '.opencode/tool/forecast.ts', 'prompts/planner.md', 'scripts/forecast.mjs'])
    expect(first.manifestChanged).toBe(true)
    expect(await read('scripts/forecast.mjs')).toBe('// forecast\n')
    expect(JSON.parse(await read('.oac/manifest.oac-tools.json')).files).toHaveProperty(['scripts/forecast.mjs'])
    if (process.platform !== 'win32') expect((await stat(join(target, 'scripts/forecast.mjs'))).mode & 0o111).not.toBe(0)
    expect(ownWrites.has(join(target, 'scripts/forecast.mjs'))).toBe(true)
    expect(isOwnWrite(join(target, '.mcp.json'))).toBe(true)

    const before = await stat(join(target, 'prompts/planner.md'))
    const second = await writeOutputs(tree('forecast'), options())
    expect(second).toEqual({ written: [], removed: [], manifestChanged: false, diagnostics: [], unchanged: ['.mcp.json', '.opencode/tool/forecast.ts', 'prompts/planner.md', 'scripts/forecast.mjs'] })
    const after = await stat(join(target, 'prompts/planner.md'))
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs])
  })

  it('the manifest lists files sorted, in the same bytes whatever order the files come in', async () => {
    // `10` and `9` are integer-like keys, which JavaScript objects list first, in numeric order.
    const files = ['scripts/b.mjs', 'scripts/a.mjs', '9', '10', 'prompts/z.md'].map((path) => owned(path, `${path}\n`))
    await writeOutputs(files, options())
    const unordered = await read('.oac/manifest.oac-tools.json')
    await rm(target, { recursive: true, force: true })
    await writeOutputs([...files].sort((a, b) => (a.path < b.path ? -1 : 1)), options())
    const ordered = await read('.oac/manifest.oac-tools.json')
    expect(unordered).toBe(ordered)
    expect(Object.keys(JSON.parse(ordered).files)).toEqual(['9', '10', 'prompts/z.md', 'scripts/a.mjs', 'scripts/b.mjs'])
  })

  it('a renamed tool removes its old files and the folders we created for them, and nothing else', async () => {
    await mkdir(join(target, 'scripts'), { recursive: true })
    await writeFile(join(target, 'scripts/mine.mjs'), 'user script\n')
    await mkdir(join(target, 'empty-user-folder'))
    await writeOutputs(tree('forecast'), options())
    const report = await writeOutputs(tree('weather'), options())
    expect(report.diagnostics).toEqual([])
    expect(report.removed).toEqual(['.opencode/tool/forecast.ts', 'scripts/forecast.mjs'])
    expect(await exists('scripts/forecast.mjs')).toBe(false)
    expect(await read('scripts/mine.mjs')).toBe('user script\n')

    const emptied = await writeOutputs([owned('prompts/planner.md', 'Use weather.\n')], options())
    expect(emptied.removed).toEqual(['.mcp.json', '.opencode/tool/weather.ts', 'scripts/weather.mjs'])
    expect(await exists('.opencode')).toBe(false) // created by us, now empty
    expect(await exists('scripts/mine.mjs')).toBe(true) // the user's file keeps its folder
    expect(await exists('empty-user-folder')).toBe(true)
  })

  it('a user file where we would write is an error naming it; nothing at all is written; force overwrites', async () => {
    await mkdir(join(target, 'prompts'))
    await writeFile(join(target, 'prompts/planner.md'), 'my own notes\n')
    const report = await writeOutputs(tree('forecast'), options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'owned-path-taken', file: join(target, 'prompts/planner.md') }])
    expect(report.written).toEqual([])
    expect(await snapshot()).toEqual({ prompts: '<dir>', 'prompts/planner.md': 'my own notes\n' })

    const forced = await writeOutputs(tree('forecast'), options({ force: true }))
    expect(forced.diagnostics).toMatchObject([{ severity: 'warning', code: 'owned-path-taken' }])
    expect(await read('prompts/planner.md')).toBe('Use forecast.\n')
  })

  it('a user file identical to what we generate is taken over silently', async () => {
    await mkdir(join(target, 'prompts'))
    await writeFile(join(target, 'prompts/planner.md'), 'Use forecast.\n')
    const report = await writeOutputs(tree('forecast'), options())
    expect(report.diagnostics).toEqual([])
    expect(report.unchanged).toContain('prompts/planner.md')
  })

  it('a generated file edited by hand is reported and not overwritten (force overwrites)', async () => {
    await writeOutputs(tree('forecast'), options())
    await writeFile(join(target, 'prompts/planner.md'), 'Use forecast. (edited)\n')
    const changed = tree('forecast').map((f) => (f.path === 'prompts/planner.md' ? owned(f.path, 'Use forecast, version 2.\n') : f))
    const report = await writeOutputs(changed, options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'owned-file-edited' }])
    expect(report.diagnostics[0]?.message).toMatch(/edited by hand/)
    expect(await read('prompts/planner.md')).toBe('Use forecast. (edited)\n')

    const forced = await writeOutputs(changed, options({ force: true }))
    expect(forced.diagnostics).toMatchObject([{ severity: 'warning', code: 'owned-file-edited' }])
    expect(await read('prompts/planner.md')).toBe('Use forecast, version 2.\n')
  })

  it('a rebuild in the same process notices a same-size hand edit and a lost executable bit of a file it wrote', async () => {
    await writeOutputs(tree('forecast'), options())
    // Same length, same inode: only the content and the modification time differ from what we left.
    await writeFile(join(target, 'prompts/planner.md'), 'Use FORECAST.\n')
    if (process.platform !== 'win32') await chmod(join(target, 'scripts/forecast.mjs'), 0o644)
    const report = await writeOutputs(tree('forecast'), options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'owned-file-edited', file: expect.stringContaining('prompts/planner.md') }])
    expect(await read('prompts/planner.md')).toBe('Use FORECAST.\n')
    if (process.platform === 'win32') return
    await writeFile(join(target, 'prompts/planner.md'), 'Use forecast.\n')
    expect((await writeOutputs(tree('forecast'), options())).written).toEqual(['scripts/forecast.mjs'])
    expect((await stat(join(target, 'scripts/forecast.mjs'))).mode & 0o111).not.toBe(0)
  })

  it('a rebuild in the same process reads the manifest again once it changed on disk', async () => {
    await writeOutputs(tree('forecast'), options())
    expect((await writeOutputs(tree('forecast'), options())).written).toEqual([])
    const manifest = join(target, '.oac/manifest.oac-tools.json')
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('"version": 1', '"version": 9'))
    expect((await writeOutputs(tree('forecast'), options())).diagnostics).toMatchObject([{ code: 'manifest-invalid' }])
  })

  it('a rebuild in the same process notices hand edits of a merge file it wrote or found up to date', async () => {
    const files = [mcpJson(), agentToml()]
    await writeOutputs(files, options())
    expect((await writeOutputs(files, options())).unchanged).toEqual(['.codex/agents/planner.toml', '.mcp.json'])
    // Same length: our entry's command edited by hand is an error, and the edit stays.
    const json = await read('.mcp.json')
    await writeFile(join(target, '.mcp.json'), json.replace('"node"', '"deno"'))
    const edited = await writeOutputs(files, options())
    expect(edited.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-entry-edited', file: expect.stringContaining('.mcp.json') }])
    expect(await read('.mcp.json')).toBe(json.replace('"node"', '"deno"'))
    await writeFile(join(target, '.mcp.json'), json)
    // The user's own key, added beside ours after a rebuild found the file up to date, is kept.
    expect((await writeOutputs(files, options())).unchanged).toContain('.codex/agents/planner.toml')
    const toml = await read('.codex/agents/planner.toml')
    await writeFile(join(target, '.codex/agents/planner.toml'), `model = "mine"\n${toml}`)
    const renamed = [mcpJson(), agentToml('other-tools')]
    expect((await writeOutputs(renamed, options())).written).toEqual(['.codex/agents/planner.toml'])
    const merged = await read('.codex/agents/planner.toml')
    expect(merged).toMatch(/^model = "mine"\n/)
    expect(merged).toContain('[mcp_servers.other-tools]')
    expect(merged).not.toContain('[mcp_servers.oac-tools]')
  })

  it('a generated file found empty (what a power cut after an unflushed write leaves) is written again', async () => {
    await writeOutputs(tree('forecast'), options())
    await writeFile(join(target, 'prompts/planner.md'), '')
    const changed = tree('forecast').map((f) => (f.path === 'prompts/planner.md' ? owned(f.path, 'Use forecast, version 2.\n') : f))
    const report = await writeOutputs(changed, options())
    expect(report.diagnostics).toEqual([])
    expect(report.written).toEqual(['prompts/planner.md'])
    expect(await read('prompts/planner.md')).toBe('Use forecast, version 2.\n')
  })

  it('a generated file edited by hand that we no longer generate is left in place, with a warning', async () => {
    await writeOutputs(tree('forecast'), options())
    await writeFile(join(target, 'scripts/forecast.mjs'), '// mine now\n')
    const report = await writeOutputs(tree('weather'), options())
    expect(report.diagnostics).toMatchObject([{ severity: 'warning', code: 'owned-file-kept' }])
    expect(await read('scripts/forecast.mjs')).toBe('// mine now\n')
    expect(report.removed).toEqual(['.opencode/tool/forecast.ts'])
  })

  it('check and dry-run write nothing and report what would change', async () => {
    await writeOutputs(tree('forecast'), options())
    const before = await snapshot()
    for (const mode of ['check', 'dry-run'] as const) {
      const report = await writeOutputs(tree('weather'), options({ mode }))
      expect(report.written).toEqual(['.opencode/tool/weather.ts', 'prompts/planner.md', 'scripts/weather.mjs'])
      expect(report.removed).toEqual(['.opencode/tool/forecast.ts', 'scripts/forecast.mjs'])
      expect(await snapshot()).toEqual(before)
    }
    const clean = await writeOutputs(tree('forecast'), options({ mode: 'check' }))
    expect([clean.written, clean.removed]).toEqual([[], []])
  })

  it('a merge target that does not parse fails with file and line, stays byte-identical, and nothing is written', async () => {
    const broken = '{\n  "mcpServers": {\n    "mine": { "command": "x" }\n    "other": {}\n  }\n}\n'
    await writeFile(join(target, '.mcp.json'), broken)
    const report = await writeOutputs(tree('forecast'), options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-parse-error', file: join(target, '.mcp.json'), line: 4 }])
    expect(await snapshot()).toEqual({ '.mcp.json': broken })
  })

  it('merges keep the user’s file (BOM, permissions, symlink) and entries we stop emitting are removed', async () => {
    await writeFile(join(target, 'real.json'), '\uFEFF{\n  "mcpServers": {\n    "mine": {}\n  }\n}\n')
    await symlink('real.json', join(target, '.mcp.json'))
    if (process.platform !== 'win32') await chmod(join(target, 'real.json'), 0o600)
    await writeOutputs([mcpJson()], options())
    expect((await lstat(join(target, '.mcp.json'))).isSymbolicLink()).toBe(true)
    const merged = await readFile(join(target, 'real.json'), 'utf8')
    expect(merged.startsWith('\uFEFF{\n  "mcpServers": {\n    "mine": {},\n    "oac-tools": {')).toBe(true)
    if (process.platform !== 'win32') expect((await stat(join(target, 'real.json'))).mode & 0o777).toBe(0o600)

    await writeOutputs([], options())
    expect(await readFile(join(target, 'real.json'), 'utf8')).toBe('\uFEFF{\n  "mcpServers": {\n    "mine": {}\n  }\n}\n')
  })

  it('a merge file we created is deleted when our entries go; a user’s TOML only loses our entries', async () => {
    await mkdir(join(target, '.codex/agents'), { recursive: true })
    await writeFile(join(target, '.codex/agents/reviewer.toml'), '# mine\nmodel = "o3"\n')
    const reviewer: MergeFile = { ...agentToml(), path: '.codex/agents/reviewer.toml' }
    await writeOutputs([agentToml(), reviewer], options())
    expect(await read('.codex/agents/planner.toml')).toBe('name = "planner"\n\n[mcp_servers.oac-tools]\ncommand = "node"\n')
    expect(await read('.codex/agents/reviewer.toml')).toBe('# mine\nmodel = "o3"\nname = "planner"\n\n[mcp_servers.oac-tools]\ncommand = "node"\n')
    const report = await writeOutputs([], options())
    expect(report.removed).toEqual(['.codex/agents/planner.toml'])
    expect(report.written).toEqual(['.codex/agents/reviewer.toml'])
    expect(await read('.codex/agents/reviewer.toml')).toBe('# mine\nmodel = "o3"\n')
    expect(await exists('.oac/manifest.oac-tools.json')).toBe(false)
  })

  it('our merge entry edited by hand is reported, not overwritten (force overwrites)', async () => {
    await writeOutputs([mcpJson()], options())
    const edited = (await read('.mcp.json')).replace('"node"', '"bun"')
    await writeFile(join(target, '.mcp.json'), edited)
    const report = await writeOutputs([mcpJson('oac-tools', 'node22')], options())
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'merge-entry-edited' }])
    expect(await read('.mcp.json')).toBe(edited)
    await writeOutputs([mcpJson('oac-tools', 'node22')], options({ force: true }))
    expect(await read('.mcp.json')).toContain('"node22"')

    // An edit that matches what we now generate loses nothing: no report.
    await writeFile(join(target, '.mcp.json'), (await read('.mcp.json')).replace('"node22"', '"node24"'))
    expect((await writeOutputs([mcpJson('oac-tools', 'node24')], options())).diagnostics).toEqual([])
  })

  it('two apps in one target keep separate manifests and remove only their own files', async () => {
    await writeOutputs([owned('scripts/a.mjs', 'a\n'), mcpJson('app-a')], options({ owner: 'app-a' }))
    await writeOutputs([owned('scripts/b.mjs', 'b\n'), mcpJson('app-b')], options({ owner: 'app-b' }))
    expect(Object.keys(JSON.parse(await read('.mcp.json')).mcpServers)).toEqual(['app-a', 'app-b'])
    const report = await writeOutputs([], options({ owner: 'app-a' }))
    expect(report.removed).toEqual(['scripts/a.mjs'])
    expect(await read('scripts/b.mjs')).toBe('b\n')
    expect(Object.keys(JSON.parse(await read('.mcp.json')).mcpServers)).toEqual(['app-b'])

    const clash = await writeOutputs([owned('scripts/b.mjs', 'not b\n')], options({ owner: 'app-c' }))
    expect(clash.diagnostics[0]?.message).toBe('scripts/b.mjs belongs to the app whose MCP server is "app-b" (.oac/manifest.app-b.json lists it), and this app ("app-c") generates the same path.')
    expect(clash.diagnostics[0]?.fix).toContain('from one of the two apps only')
    expect(clash.diagnostics[0]?.fix).not.toMatch(/build with force/)
  })

  it('a literal secret fails the write before anything is written; bundled scripts are not scanned', async () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'
    const report = await writeOutputs(
      [owned('prompts/planner.md', `Intro\nUse the token ${token} to call GitHub.\n`), owned('scripts/x.mjs', `const h="${token}"`)],
      options(),
    )
    expect(report.diagnostics).toMatchObject([{ severity: 'error', code: 'secret-literal', file: join(target, 'prompts/planner.md'), line: 2, column: 15 }])
    expect(report.diagnostics[0]?.message).not.toContain(token)
    expect(report.diagnostics[0]?.fix).toMatch(/declare the variable by name in the config's env/)
    expect(await snapshot()).toEqual({})

    const inMerge = await writeOutputs(
      [{ kind: 'merge', path: '.mcp.json', format: 'json', entries: [{ keyPath: ['mcpServers', 'x'], value: { command: 'node', env: { GITHUB_TOKEN: token } } }] }],
      options(),
    )
    expect(inMerge.diagnostics).toMatchObject([{ code: 'secret-literal', line: 6 }])
    expect(await exists('.mcp.json')).toBe(false)
    const scriptsOnly = await writeOutputs([owned('scripts/x.mjs', `const h="${token}"`)], options())
    expect(scriptsOnly.diagnostics).toEqual([])
  })

  it('a damaged manifest is an error with the fix; bad paths and owners are rejected', async () => {
    await mkdir(join(target, '.oac'))
    await writeFile(join(target, '.oac/manifest.oac-tools.json'), '{ nope')
    const damaged = await writeOutputs(tree('forecast'), options())
    expect(damaged.diagnostics).toMatchObject([{ code: 'manifest-invalid' }])
    expect(damaged.diagnostics[0]?.fix).toMatch(/Delete .*manifest\.oac-tools\.json/)
    await rm(join(target, '.oac'), { recursive: true })

    for (const path of ['../escape.md', '/abs.md', 'a//b', '.oac/x', 'a\\b']) {
      expect((await writeOutputs([owned(path, 'x')], options())).diagnostics[0]?.code).toBe('output-path-invalid')
    }
    expect((await writeOutputs([owned('a', 'x'), owned('a', 'y')], options())).diagnostics[0]?.code).toBe('output-path-duplicate')
    expect((await writeOutputs([], options({ owner: '../x' }))).diagnostics[0]?.code).toBe('owner-invalid')
    expect(await snapshot()).toEqual({})
  })
})
