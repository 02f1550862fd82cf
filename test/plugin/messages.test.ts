import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { rspack } from '@rspack/core'
import * as esbuild from 'esbuild'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import webpack from 'webpack'
import oacEsbuild from '../../src/esbuild.js'
import oacRspack from '../../src/rspack.js'
import oacWebpack from '../../src/webpack.js'
import { copyProject, repoRoot } from '../util/project.js'
import { APP_BUNDLE, BUNDLERS, type BundlerName, readTree } from './bundlers.js'
import { BAD_REGISTRY, WARNING_REGISTRY } from './registries.js'
import { backdate, startWatch, waitFor } from './watchers.js'

// What a user sees when a definition is wrong: the text each bundler prints for our diagnostic.
// Vite, Rollup and Rolldown print it from their own command line (run here with the built package,
// as a user's config would load it); esbuild's text is its formatMessages, webpack's and Rspack's the
// stats text their command lines print.

const MESSAGE = 'The tool name "bad name" must start with a lowercase letter'
const FIX = 'fix: Rename the tool to lowercase words joined by'
const OPTIONS = "{ registry: './agents/bad.ts:registry', target: 'tree' }"
const dist = (name: string) => pathToFileURL(join(repoRoot, 'dist', `${name}.js`)).href
const execFileAsync = promisify(execFile)

let root: string

beforeAll(async () => {
  if (!existsSync(join(repoRoot, 'dist/vite.js'))) throw new Error('run `npm run build` first: the command-line builds load the built package')
  root = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-messages-')
  await writeFile(join(root, 'agents/bad.ts'), BAD_REGISTRY)
  await writeFile(
    join(root, 'vite.config.mjs'),
    `import oac from '${dist('vite')}'\nexport default { plugins: [oac(${OPTIONS})], build: { lib: { entry: 'src/main.js', formats: ['es'] } } }\n`,
  )
  for (const bundler of ['rollup', 'rolldown']) {
    await writeFile(
      join(root, `${bundler}.config.mjs`),
      `import oac from '${dist(bundler)}'\nexport default { input: 'src/main.js', output: { dir: 'dist-${bundler}' }, plugins: [oac(${OPTIONS})] }\n`,
    )
  }
})

afterAll(async () => {
  if (root) await rm(root, { recursive: true, force: true })
})

/** The bundler's command line, run in the project; its whole output (it fails, so it exits non-zero). */
async function commandLine(args: string[]): Promise<string> {
  const bin = join(repoRoot, 'node_modules/.bin', args[0]!)
  const run = execFileAsync(bin, args.slice(1), { cwd: root, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', NODE_DEBUG: '' } })
  const failure = (await run.then(
    () => undefined,
    (error: { stdout: string; stderr: string }) => error,
  )) as { stdout: string; stderr: string } | undefined
  if (!failure) throw new Error(`${args.join(' ')} did not fail`)
  return `${failure.stdout}\n${failure.stderr}`
}

async function webpackLikeText(make: typeof webpack | typeof rspack, plugin: typeof oacWebpack | typeof oacRspack, name: string): Promise<string> {
  const compiler = (make as (options: object) => {
    run(callback: (error: Error | null, stats?: { toString(options: object): string }) => void): void
    close(callback: () => void): void
  })({
    context: root,
    mode: 'production',
    entry: './src/main.js',
    output: { path: join(root, `dist-${name}`) },
    plugins: [plugin({ registry: './agents/bad.ts:registry', target: 'tree' })],
  })
  try {
    return await new Promise<string>((resolve, reject) => {
      compiler.run((error, stats) => (error ? reject(error) : resolve(stats!.toString({ colors: false }))))
    })
  } finally {
    await new Promise<void>((resolve) => compiler.close(() => resolve()))
  }
}

async function printed(bundler: BundlerName): Promise<string> {
  switch (bundler) {
    case 'vite':
      return commandLine(['vite', 'build'])
    case 'rollup':
      return commandLine(['rollup', '-c', 'rollup.config.mjs'])
    case 'rolldown':
      return commandLine(['rolldown', '-c', 'rolldown.config.mjs'])
    case 'esbuild': {
      const failure = await esbuild
        .build({ absWorkingDir: root, entryPoints: ['src/main.js'], bundle: true, outdir: 'dist-esbuild', logLevel: 'silent', plugins: [oacEsbuild({ registry: './agents/bad.ts:registry', target: 'tree' })] })
        .then(
          () => undefined,
          (error: esbuild.BuildFailure) => error,
        )
      if (!failure) throw new Error('esbuild did not fail')
      return (await esbuild.formatMessages(failure.errors, { kind: 'error', color: false })).join('')
    }
    case 'webpack':
      return webpackLikeText(webpack, oacWebpack, 'webpack')
    case 'rspack':
      return webpackLikeText(rspack, oacRspack, 'rspack')
  }
}

function count(text: string, part: string): number {
  return text.split(part).length - 1
}

describe('each bundler shows a definition error once: file and line, code, message and fix, no stack', () => {
  test.each(BUNDLERS)('%s', async (bundler) => {
    const text = await printed(bundler)
    expect(count(text, MESSAGE), text).toBe(1)
    expect(count(text, '[tool-name-invalid]'), text).toBe(1)
    expect(count(text, FIX), text).toBe(1)
    // Every bundler has its own way of writing a place: agents/bad.ts:5:16, agents/bad.ts (5:16), esbuild's 0-based agents/bad.ts:5:15.
    expect(text).toMatch(/agents\/bad\.ts(:5:\d+| \(5:\d+\))/)
    // No frame of ours. Vite and Rolldown print the frames of their own error that wraps every plugin's (in their node_modules).
    const frames = text.split('\n').filter((line) => /^\s+at /.test(line))
    expect(frames.filter((line) => !/node_modules[\\/](vite|rolldown)[\\/]/.test(line)), text).toEqual([])
    if (bundler !== 'vite' && bundler !== 'rolldown') expect(frames).toEqual([])
    expect(text).not.toContain('virtual:oac has no manifest')
    expect(existsSync(join(root, 'tree'))).toBe(false)
  })
})

describe('what a build says besides errors', () => {
  test('a Rollup build logs one summary line of the tree it wrote, and where', async () => {
    const { rollup } = await import('rollup')
    const oacRollup = (await import('../../src/rollup.js')).default
    const infos: string[] = []
    const bundle = await rollup({
      input: join(root, 'src/main.js'),
      plugins: [oacRollup({ registry: './agents/registry.ts:registry', root, target: 'summary-tree', cache: false })],
      onLog: (level, log) => {
        if (level === 'info' && log.plugin === 'unplugin-oac') infos.push(log.message)
      },
    })
    try {
      await bundle.write({ dir: join(root, 'dist-summary'), format: 'es' })
    } finally {
      await bundle.close()
    }
    expect(infos).toHaveLength(1)
    const files = (await readTree(join(root, 'summary-tree'))).size
    // The manifest under .oac/ is write/'s bookkeeping, not one of the tree's files.
    expect(infos[0]).toContain(`agent tree (config default) in summary-tree/: ${files - 1} written, 0 unchanged, 0 removed`)
    expect(infos[0]).toMatch(/\[\.claude\/ \d+, .*scripts\/ \d+\]$/)
  })

  test('Vite prints a warning with its place (it shows a plugin warning as bare text)', async () => {
    const { build, createLogger } = await import('vite')
    const oacVite = (await import('../../src/vite.js')).default
    await writeFile(join(root, 'agents/lossy.ts'), WARNING_REGISTRY)
    const warnings: string[] = []
    const logger = { ...createLogger('silent'), warn: (message: string) => void warnings.push(message), hasWarned: false }
    await build({
      root,
      configFile: false,
      customLogger: logger,
      logLevel: 'warn',
      plugins: [oacVite({ registry: './agents/lossy.ts:registry', target: 'vite-warn-tree', cache: false })],
      build: { outDir: join(root, 'dist-vite-warn'), lib: { entry: join(root, 'src/main.js'), formats: ['es'] } },
    })
    const ours = warnings.filter((text) => text.includes('[tool-schema-construct]'))
    expect(ours).toHaveLength(1)
    expect(ours[0]).toMatch(/\[plugin unplugin-oac\] agents\/lossy\.ts:5:\d+: warning \[tool-schema-construct\] .*\n  fix: /)
  })

  test('rebuilds show the compile warnings again only when they changed', async () => {
    const project = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), 'oac-messages-warn-')
    try {
      const registryFile = join(project, 'agents/lossy.ts')
      await writeFile(registryFile, WARNING_REGISTRY)
      const context = await esbuild.context({
        absWorkingDir: project,
        entryPoints: ['src/main.js'],
        bundle: true,
        write: false,
        outdir: 'dist',
        logLevel: 'silent',
        plugins: [oacEsbuild({ registry: './agents/lossy.ts:registry', target: 'tree', cache: false })],
      })
      try {
        const ours = async () => (await context.rebuild()).warnings.filter((w) => w.pluginName === 'unplugin-oac').map((w) => w.text)
        const first = await ours()
        expect(first.length).toBeGreaterThan(0)
        // Same warnings after an edit elsewhere in the registry: not shown again.
        await writeFile(registryFile, WARNING_REGISTRY.replace("description: 'Helps.'", "description: 'Helps a lot.'"))
        expect(await ours()).toEqual([])
        // A change to the warned field changes the warning: shown again.
        await writeFile(registryFile, WARNING_REGISTRY.replace("kind: z.literal('user')", "sort: z.literal('user')"))
        const third = await ours()
        expect(third.length).toBeGreaterThan(0)
        expect(third).not.toEqual(first)
      } finally {
        await context.dispose()
      }
    } finally {
      await rm(project, { recursive: true, force: true })
    }
  })
})

describe('NODE_DEBUG=oac:* says why a build compiled, or did not', () => {
  /** A Node process that builds the project with Rollup and the built plugin, with NODE_DEBUG set; its stderr. */
  async function debugBuild(nodeDebug: string, registry = './agents/registry.ts:registry'): Promise<string> {
    const script = `import { rollup } from 'rollup'
import oac from '${dist('rollup')}'
// A failed build rejects here; Node prints the error as it prints any uncaught one.
const bundle = await rollup({ input: 'src/main.js', onLog: () => {}, plugins: [oac({ registry: '${registry}', target: 'debug-tree' })] })
await bundle.write({ dir: 'dist-debug', format: 'es' })
await bundle.close()
`
    await writeFile(join(root, 'debug-build.mjs'), script)
    const child = await execFileAsync(process.execPath, ['debug-build.mjs'], { cwd: root, env: { ...process.env, NODE_DEBUG: nodeDebug } }).catch(
      (error: { stderr: string }) => ({ stderr: error.stderr }),
    )
    return child.stderr
  }

  test('the build cache: a miss with its reason, the record written, then a hit', async () => {
    await rm(join(root, 'debug-tree'), { recursive: true, force: true })
    await rm(join(root, 'node_modules/.cache/oac'), { recursive: true, force: true })
    const first = await debugBuild('oac:*')
    expect(first).toMatch(/OAC:REBUILD \d+: compile: first build of this plugin instance; asking the build cache first/)
    expect(first).toMatch(/OAC:CACHE \d+: miss for .*debug-tree: no record/)
    expect(first).toMatch(/OAC:CACHE \d+: recorded the build into .*debug-tree/)
    const second = await debugBuild('oac:cache')
    expect(second).toMatch(/OAC:CACHE \d+: hit for .*debug-tree: nothing changed/)
    expect(second).not.toContain('OAC:REBUILD')
    await writeFile(join(root, 'agents/calculator.md'), 'You add numbers, edited.\n')
    const third = await debugBuild('oac:cache')
    expect(third).toMatch(/OAC:CACHE \d+: miss for .*debug-tree: .*agents\/calculator\.md changed since the recorded build/)
    expect(await debugBuild('')).not.toContain('OAC:')
  })

  test('oac:stack keeps the stack of a diagnostic', async () => {
    const quiet = await debugBuild('', './agents/bad.ts:registry')
    const stacked = await debugBuild('oac:stack', './agents/bad.ts:registry')
    expect(quiet).toContain('[tool-name-invalid]')
    expect(quiet).not.toMatch(/^\s+at /m)
    expect(stacked).toContain('[tool-name-invalid]')
    expect(stacked).toMatch(/^\s+at .*dist[\\/]/m)
  })
})

describe('the stand-in virtual:oac of a failed build', () => {
  // The failed build's virtual:oac is a stand-in with empty exports (the error is reported once, by the
  // build's start); once the registry is fixed, the app gets the real manifest again.
  test.each(['webpack', 'esbuild', 'rollup'] as const)('%s: the fixed build bundles the real manifest', async (bundler) => {
    const project = await copyProject(join(repoRoot, 'test/fixtures/plugin-basic'), `oac-stand-in-${bundler}-`)
    try {
      const registryFile = join(project, 'agents/standin.ts')
      await writeFile(registryFile, BAD_REGISTRY)
      await backdate(project)
      const outDir = join(project, 'dist')
      const watching = await startWatch(bundler, { root: project, outDir, options: { registry: './agents/standin.ts:registry', target: 'tree' } })
      try {
        await waitFor('the failed build', () => watching.failures >= 1)
        expect(watching.lastError).toContain('[tool-name-invalid]')
        expect(watching.lastError).not.toContain('virtual:oac has no manifest')
        const temp = join(project, 'standin.tmp')
        await writeFile(temp, BAD_REGISTRY.replace("name: 'bad name'", "name: 'good_name'"))
        await rename(temp, registryFile)
        const bundle = join(outDir, APP_BUNDLE)
        // The bundle file is written before the build's last hooks (ours writes the tree there): wait for the
        // build to end too, or closing the watcher leaves our write to land in the removed project.
        await waitFor(
          'the fixed build with the real manifest',
          async () => watching.builds > watching.failures && (await readFile(bundle, 'utf8').catch(() => '')).includes('good_name'),
          30_000,
        )
      } finally {
        await watching.close()
      }
    } finally {
      await rm(project, { recursive: true, force: true })
    }
  })
})
