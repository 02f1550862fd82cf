import { describe, expect, test } from 'vitest'
import oacEsbuild from '../../src/esbuild.js'
import { OacOptionsError, unpluginOac } from '../../src/plugin/index.js'
import fc from 'fast-check'
import { z } from 'zod'
import { optionsSchema, validateOptions } from '../../src/plugin/options.js'
import oacRollup from '../../src/rollup.js'
import oacVite from '../../src/vite.js'
import webpack from 'webpack'
import oacWebpack from '../../src/webpack.js'

function problemsOf(raw: unknown): string {
  try {
    validateOptions(raw)
  } catch (error) {
    expect(error).toBeInstanceOf(OacOptionsError)
    return (error as Error).message
  }
  throw new Error('expected the options to be rejected')
}

describe('plugin options', () => {
  test('accepts every documented option', () => {
    const options = {
      registry: './agents/registry.ts:registry',
      config: 'prod',
      target: '.',
      harnesses: ['claude', 'opencode'] as const,
      nativeTools: false,
      root: 'apps/a',
      serverName: 'app-a-tools',
      bridge: 'inline' as const,
      codexConfig: true,
      force: true,
      cache: false,
    }
    expect(validateOptions({ ...options, harnesses: [...options.harnesses] })).toEqual({ ...options, harnesses: ['claude', 'opencode'] })
  })

  test('names a missing registry and what to write', () => {
    expect(problemsOf({})).toContain('option `registry` is missing')
    expect(problemsOf({})).toContain('./agents/registry.ts:registry')
  })

  test('rejects a call without an options object', () => {
    expect(problemsOf(undefined)).toContain('expected an options object')
    expect(problemsOf('agents/registry.ts')).toContain('got "agents/registry.ts"')
  })

  test('names each bad option with the value it got', () => {
    const message = problemsOf({ registry: 'r.ts', harnesses: ['claude', 'vim'], nativeTools: 'yes', bridge: 'socket', target: '' })
    expect(message).toContain('option `harnesses[1]`: expected one of opencode, claude, codex, pi, omp, gemini, copilot, qwen, kilo, cline, got "vim"')
    expect(message).toContain('option `nativeTools`: expected true or false, got "yes"')
    expect(message).toContain('option `bridge`: expected "process" or "inline", got "socket"')
    expect(message).toContain('option `target`')
    expect(message).toContain('empty string')
  })

  test('rejects unknown options and lists the known ones', () => {
    const message = problemsOf({ registry: 'r.ts', outDir: 'dist', harness: ['claude'] })
    expect(message).toContain('unknown options `outDir`, `harness`')
    expect(message).toContain('known: registry, config, target, harnesses, nativeTools, root, serverName, bridge, codexConfig, plugin, scope, force, cache')
  })

  test('takes a plugin folder in place of a target, and says what is wrong with one', () => {
    const plugin = { dir: 'dist/plugin', name: 'trip-kit', version: '1.0.0', description: 'Trips.' }
    expect(validateOptions({ registry: 'r.ts', plugin })).toEqual({ registry: 'r.ts', plugin })
    expect(problemsOf({ registry: 'r.ts', plugin, target: '.' })).toContain('option `target`: `plugin.dir` names the folder to write, as `target` does: give one of them')
    expect(problemsOf({ registry: 'r.ts', plugin: { name: 'trip-kit' } })).toContain('option `plugin.dir`')
    expect(problemsOf({ registry: 'r.ts', plugin: { dir: 'p', owner: 'me' } })).toContain('`owner`')
    expect(problemsOf({ registry: 'r.ts', plugin: 'dist/plugin' })).toContain('option `plugin`: expected { dir, name?, version?, description?, author?, license?, repository?, homepage?, keywords? }')
    // package.json's metadata, in package.json's shapes.
    const described = { dir: 'p', author: { name: 'Ada', url: 'https://example.com' }, license: 'MIT', repository: 'github:example/kit', homepage: 'https://example.com/kit', keywords: ['kit'] }
    expect(validateOptions({ registry: 'r.ts', plugin: described })).toEqual({ registry: 'r.ts', plugin: described })
    expect(validateOptions({ registry: 'r.ts', plugin: { dir: 'p', author: 'Ada <ada@example.com>', repository: { type: 'git', url: 'https://example.com/kit.git' } } }).plugin?.author).toBe('Ada <ada@example.com>')
    expect(problemsOf({ registry: 'r.ts', plugin: { dir: 'p', author: { email: 'ada@example.com' } } })).toContain('option `plugin.author`: expected "Name <email> (url)" or { name, email?, url? }')
    expect(problemsOf({ registry: 'r.ts', plugin: { dir: 'p', keywords: 'kit' } })).toContain('option `plugin.keywords`: expected a list of keywords')
  })

  test("takes scope 'user' in place of a target or a plugin folder", () => {
    expect(validateOptions({ registry: 'r.ts', scope: 'user' })).toEqual({ registry: 'r.ts', scope: 'user' })
    expect(problemsOf({ registry: 'r.ts', scope: 'team' })).toContain('option `scope`: expected "project" or "user", got "team"')
    expect(problemsOf({ registry: 'r.ts', scope: 'user', target: '.' })).toContain("option `scope`: scope 'user' writes into the home folder of whoever runs the build: leave out `target` and `plugin`")
    expect(problemsOf({ registry: 'r.ts', scope: 'user', plugin: { dir: 'p' } })).toContain('leave out `target` and `plugin`')
  })

  test('every bundler entry validates when the plugin is created', () => {
    const bad = { registry: 'r.ts', harnesses: 'claude' } as never
    for (const create of [oacVite, oacRollup, oacEsbuild, unpluginOac.rolldown]) {
      expect(() => create(bad)).toThrow(/option `harnesses`: expected an array of harness names/)
    }
    // webpack creates the plugin when the compiler applies it.
    expect(() => webpack({ context: import.meta.dirname, entry: './options.test.ts', plugins: [oacWebpack(bad)] })).toThrow(/option `harnesses`/)
  })

  test('the fast check accepts exactly what the zod schema accepts', () => {
    const keys = ['registry', 'config', 'target', 'harnesses', 'nativeTools', 'root', 'serverName', 'bridge', 'codexConfig', 'plugin', 'force', 'cache', 'outDir']
    const text = fc.constantFrom('', 'r.ts', 'process', 'inline', 'claude', true, false, 0, 1, null, undefined)
    const value = fc.oneof(
      text,
      fc.array(fc.constantFrom('claude', 'opencode', 'vim', 3, undefined), { maxLength: 3 }),
      fc.constant({}),
      fc.dictionary(fc.constantFrom('dir', 'name', 'version', 'description', 'owner'), text),
    )
    const options = fc.oneof(fc.dictionary(fc.constantFrom(...keys), value), fc.record({ registry: fc.constant('r.ts') }), value)
    fc.assert(
      fc.property(options, (raw) => {
        const accepted = (() => {
          try {
            validateOptions(raw)
            return true
          } catch (error) {
            if (!(error instanceof OacOptionsError)) throw error
            return false
          }
        })()
        expect(accepted).toBe(optionsSchema(z).safeParse(raw).success)
      }),
      { numRuns: 2000 },
    )
  })
})
