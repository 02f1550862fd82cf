import { existsSync, readFileSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, relative, sep } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Run, run } from '../util/process.js'
import { repoRoot } from '../util/project.js'
import { readQuickStart } from '../util/quick-start.js'

/*
 * The package as users get it: `npm pack`, the tarball installed with its peers into a fresh app in
 * a temp folder (no link back into this repo), built there with vite, rollup, esbuild and the CLI,
 * type-checked with tsc, its tool scripts and MCP server run, also under Node 22 and 24.
 *
 * Versions: the app's packages are the exact versions this repo's package.json pins (zod's oldest
 * supported minor as the `zod-oldest` alias), so `npm ci` here has put every tarball the app needs
 * into the npm cache, and the app installs with `--prefer-offline`. The app's own lock is not
 * committed: the tarball changes with every build, and its dependencies' ranges are the ones users
 * resolve. Node 22 and 24 are the registry's `node` package at the exact versions below, installed
 * once into node_modules/.cache/oac-node/<version>; the machine's Node stays as it is.
 */

const NODE_VERSIONS = ['22.23.3', '24.21.0'] as const

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  exports: Record<string, string | Record<string, string>>
  bin: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

/** The exact version this repo pins for `name` (an `npm:pkg@version` alias gives its version). */
function pinned(name: string): string {
  const spec = pkg.devDependencies[name] ?? pkg.dependencies[name]
  if (!spec) throw new Error(`package.json pins no ${name}`)
  const version = spec.replace(/^npm:.+@/, '')
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`${name} is not pinned to an exact version: ${spec}`)
  return version
}

interface Variant {
  name: string
  zod: string
  typebox: 'typebox' | '@sinclair/typebox'
  typeboxVersion: string
}

const VARIANTS: Variant[] = [
  { name: 'newest zod, TypeBox 1.x', zod: pinned('zod'), typebox: 'typebox', typeboxVersion: pinned('typebox') },
  { name: 'oldest zod 4 minor, TypeBox 0.34', zod: pinned('zod-oldest'), typebox: '@sinclair/typebox', typeboxVersion: pinned('@sinclair/typebox') },
]

const made: string[] = []
let tarball = ''
let packedFiles: string[] = []

async function tempFolder(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}

/** Runs a command and fails with its output when it exits non-zero. */
async function must(command: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<Run> {
  const result = await run(command, args, { cwd, env: env ?? process.env })
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) exited ${result.code}:\n${result.stdout}\n${result.stderr}`)
  return result
}

/** Every file under `dir`, relative and with `/` separators, with its text. */
async function tree(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>()
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const path = join(entry.parentPath, entry.name)
    files.set(relative(dir, path).split(sep).join('/'), await readFile(path, 'utf8'))
  }
  return new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** The `node` binary of one version from the registry's `node` package, installed once into the repo's cache. */
async function nodeBinary(version: string): Promise<string> {
  const prefix = join(repoRoot, 'node_modules', '.cache', 'oac-node', version)
  const binary = join(prefix, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (!existsSync(binary)) {
    await mkdir(prefix, { recursive: true })
    await must('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `node@${version}`], prefix)
  }
  const reported = await must(binary, ['--version'], prefix)
  expect(reported.stdout.trim()).toBe(`v${version}`)
  return binary
}

beforeAll(async () => {
  // `npm test` builds first; packing with scripts would clean dist/ under the tests running beside this one.
  if (!existsSync(join(repoRoot, 'dist', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does).')
  const folder = await tempFolder('oac-pack-')
  const packed = await must('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', folder], repoRoot)
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
  tarball = join(folder, info!.filename)
  packedFiles = info!.files.map((file) => file.path)
}, 120_000)

afterAll(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
})

describe('the packed tarball', () => {
  it('holds every file the README and package.json promise', () => {
    const targets = [
      ...Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target))),
      ...Object.values(pkg.bin),
    ].map((target) => target.replace(/^\.\//, ''))
    expect(targets).toContain('client.d.ts')
    for (const file of [...new Set(targets), 'LICENSE', 'README.md', 'package.json', 'peer-types.d.ts', 'dist/runtime/check-typebox.js', 'dist/runtime/check-sinclair-typebox.js']) {
      expect(packedFiles, file).toContain(file)
    }
  })
})

describe("the README's quick start, followed as written in a fresh npm project", () => {
  const quickStart = readQuickStart()

  it('installs, compiles into the files it names, and runs the tool as it shows', async () => {
    const app = await tempFolder('oac-quick-start-')
    // A user's project: `npm init -y`'s package.json (CommonJS), in a git repository as the quick start asks.
    await must('npm', ['init', '-y'], app)
    await must('git', ['init', '-q'], app)
    const compiled: Run[] = []
    for (const step of quickStart.steps) {
      if (step.kind === 'file') {
        await mkdir(join(app, dirname(step.path)), { recursive: true })
        await writeFile(join(app, step.path), step.text)
      } else if (step.kind === 'command') {
        const words = step.command.split(' ')
        if (words.slice(0, 3).join(' ') === 'npm install -D') {
          // The packed tarball stands in for the registry's unplugin-oac, and the pinned zod is in npm's cache (offline CI).
          const packages = words.slice(3).map((name) => (name === 'unplugin-oac' ? tarball : name === 'zod' ? `zod@${pinned('zod')}` : name))
          expect(packages).toEqual([tarball, `zod@${pinned('zod')}`])
          await must('npm', ['install', '-D', ...packages, '--prefer-offline', '--no-audit', '--no-fund'], app)
        } else {
          compiled.push(await must('sh', ['-c', step.command], app))
        }
      } else if (step.kind === 'transcript') {
        const shown = await must('sh', ['-c', step.command], app)
        expect(shown.stdout, step.command).toBe(step.output)
      }
    }
    expect(quickStart.steps.map((step) => step.kind)).toEqual(expect.arrayContaining(['command', 'file', 'transcript']))
    // The compile printed what it wrote and no warning.
    expect(compiled.map((done) => done.stdout).join('')).toMatch(/^ {2}\.claude\/agents\/ +1 file/m)
    expect(compiled.map((done) => done.stderr).join('')).toBe('')
    for (const path of quickStart.paths) expect(existsSync(join(app, path)), `${path}, which the quick start names`).toBe(true)
    expect(quickStart.paths).toEqual(expect.arrayContaining(['.mcp.json', '.claude/agents/planner.md']))
    const servers = JSON.parse(await readFile(join(app, '.mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> }
    expect(Object.keys(servers.mcpServers)).toEqual(['oac-tools'])
    expect(await readFile(join(app, '.claude', 'agents', 'planner.md'), 'utf8')).toMatch(/^tools: mcp__oac-tools__forecast\b/m)
  }, 600_000)
})

describe.each(VARIANTS)('installed into a fresh app: $name', (variant) => {
  let app = ''
  const trees = new Map<string, Map<string, string>>()

  beforeAll(async () => {
    app = await tempFolder('oac-installed-')
    await cp(join(repoRoot, 'test', 'fixtures', 'installed-app'), app, { recursive: true })
    if (variant.typebox !== 'typebox') {
      const notes = join(app, 'agents', 'tools', 'notes.ts')
      await writeFile(notes, (await readFile(notes, 'utf8')).replace("from 'typebox'", `from '${variant.typebox}'`))
    }
    const manifest = {
      name: 'oac-installed-app',
      private: true,
      type: 'module',
      devDependencies: {
        'unplugin-oac': `file:${tarball}`,
        zod: variant.zod,
        [variant.typebox]: variant.typeboxVersion,
        vite: pinned('vite'),
        rollup: pinned('rollup'),
        esbuild: pinned('esbuild'),
        typescript: pinned('typescript'),
        '@types/node': pinned('@types/node'),
      },
    }
    await writeFile(join(app, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    await must('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], app)
    // Four builds, each into its own agent tree.
    await must('npx', ['vite', 'build'], app)
    await must('npx', ['rollup', '-c', 'rollup.config.mjs'], app)
    await must('node', ['esbuild.mjs', 'out-esbuild'], app)
    await must('npx', ['oac', 'compile', 'agents/registry.ts:registry', '--target', 'out-cli'], app)
    for (const bundler of ['vite', 'rollup', 'esbuild', 'cli']) trees.set(bundler, await tree(join(app, `out-${bundler}`)))
  }, 600_000)

  it('has one copy of zod, the app’s, which unplugin-oac and the MCP SDK share as a peer', async () => {
    const listed = await must('npm', ['ls', 'zod', '--all', '--parseable'], app)
    expect(listed.stdout.trim().split('\n')).toEqual([join(app, 'node_modules', 'zod')])
    expect(JSON.parse(await readFile(join(app, 'node_modules', 'zod', 'package.json'), 'utf8')).version).toBe(variant.zod)
  })

  it('every bundler and the CLI write the same agent tree', () => {
    const cli = trees.get('cli')!
    expect([...cli.keys()]).toEqual(expect.arrayContaining(['.mcp.json', 'scripts/forecast.mjs', 'scripts/add_note.mjs', 'scripts/mcp_tools_server.cjs']))
    for (const [bundler, files] of trees) expect(Object.fromEntries(files), bundler).toEqual(Object.fromEntries(cli))
  })

  it("keeps descriptions, defaults, enums and nested objects in every harness's files, without .int()'s safe-integer bounds", () => {
    const files = trees.get('cli')!
    const forecast = ['City name to look up', 'Temperature unit', 'fahrenheit', 'Region code within the country']
    const note = ['The note title', 'Who owns the note', 'idea']
    const expected: Record<string, string[]> = {
      '.opencode/tool/forecast.ts': forecast,
      '.opencode/tool/add_note.ts': note,
      '.omp/tools/forecast/index.ts': forecast,
      '.omp/tools/add_note/index.ts': note,
      '.pi/extensions/oac-tools.ts': [...forecast, ...note],
      // The prompts document both tools; Claude and Codex read the schemas from the MCP server (below).
      '.opencode/agent/planner.md': [...forecast, ...note],
      '.claude/agents/planner.md': [...forecast, ...note],
      '.codex/agents/planner.toml': [...forecast, ...note],
    }
    for (const [path, texts] of Object.entries(expected)) {
      const text = files.get(path)
      expect(text, path).toBeDefined()
      for (const wanted of texts) expect(text, `${path}: ${wanted}`).toContain(wanted)
      // The default of a field survives too (days: 3 in forecast, priority: 3 in add_note).
      expect(text, path).toMatch(/default[^\n]{0,12}3/)
    }
    for (const [path, text] of files) expect(text, path).not.toContain('9007199254740991')
  })

  it('type-checks the app with tsc: defineTool with its TypeBox, run’s input typed from the schema, virtual:oac typed', async () => {
    await must('npx', ['tsc', '-p', 'tsconfig.json'], app)
  })

  it('bundles the app’s zod into the scripts, not another copy', () => {
    const code = [...trees.get('cli')!].filter(([path]) => path.startsWith('scripts/')).map(([, text]) => text).join('\n')
    const versions = new Set([...code.matchAll(/major:4,minor:(\d+),patch:(\d+)/g)].map((m) => `4.${m[1]}.${m[2]}`))
    expect([...versions]).toEqual([variant.zod])
  })

  describe.each([['the machine’s Node', ''], ...NODE_VERSIONS.map((version) => [`Node ${version}`, version])])('under %s', (_label, version) => {
    let node = 'node'
    beforeAll(async () => {
      if (version) node = await nodeBinary(version)
    }, 300_000)

    it('runs the tool scripts from their command line', async () => {
      const out = join(app, 'out-cli')
      const forecast = await must(node, ['scripts/forecast.mjs', '--city', 'Oslo', '--unit', 'celsius', '--days', '-2', '--where', '{"region":"N"}'], out)
      expect(JSON.parse(forecast.stdout)).toEqual({ city: 'Oslo', days: -2, total: -1, unit: 'celsius', region: 'N' })
      const note = await must(node, ['scripts/add_note.mjs', '--title', 'Buy rope', '--kind', 'todo', '--owner', '{"name":"Ada"}'], out)
      expect(note.stdout).toBe('[todo p3] BUY ROPE for Ada (core)\n')
      const help = await must(node, ['scripts/add_note.mjs', '--help'], out)
      expect(help.stdout).toMatch(/--priority <integer>\n\s+integer; optional; default: 3\n/)
      const invalid = await run(node, ['scripts/add_note.mjs', '--title', '', '--kind', 'nope'], { cwd: out })
      expect(invalid.code).toBe(2)
      expect(invalid.stderr).toContain('kind: expected one of "todo", "idea", got "nope"')
    })

    it('serves the tools over MCP to the official SDK client, with the schemas it compiled', async () => {
      const client = new Client({ name: 'installed-test', version: '1.0.0' })
      await client.connect(new StdioClientTransport({ command: node, args: ['scripts/mcp_tools_server.cjs'], cwd: join(app, 'out-cli'), stderr: 'pipe' }))
      try {
        const { tools } = await client.listTools()
        const byName = new Map(tools.map((tool) => [tool.name, tool.inputSchema]))
        expect(byName.get('forecast')).toMatchObject({
          properties: {
            city: { type: 'string', description: 'City name to look up' },
            days: { type: 'integer', default: 3, minimum: -5 },
            unit: { enum: ['celsius', 'fahrenheit'] },
            where: { type: 'object', properties: { region: { description: 'Region code within the country' } } },
          },
          required: ['city', 'unit'],
        })
        // A TypeBox field with a default but no Optional is optional for a caller: the script fills it in.
        expect(byName.get('add_note')).toMatchObject({ properties: { priority: { default: 3 } }, required: ['title', 'kind'] })
        const result = await client.callTool({ name: 'add_note', arguments: { title: 'Tea', kind: 'idea' } })
        expect(result.content).toEqual([{ type: 'text', text: '[idea p3] TEA' }])
      } finally {
        await client.close()
      }
    })

    // The machine's Node made the trees above; the other versions build once more.
    if (version) {
      it('builds with esbuild, writing the same tree', async () => {
        const target = `out-node-${version}`
        await must(node, ['esbuild.mjs', target], app)
        expect(Object.fromEntries(await tree(join(app, target)))).toEqual(Object.fromEntries(trees.get('cli')!))
      })
    }
  })
})
