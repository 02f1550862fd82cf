import { readdir, readFile, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cacheFolderOf, vendorCache } from '../../src/bundle/vendor-cache.js'
import { ownBuild } from '../../src/package-paths.js'
import { tempDir } from '../util/temp.js'

const VALUE = { files: [{ path: 'vendor/zod@4.0.0/index.mjs', text: 'export const z = 1\n' }], needs: [] }

/** A cache of one folder. */
interface FolderCache {
  read(group: string, key: string): Promise<unknown>
  write(group: string, key: string, inputs: string[], value: unknown): Promise<void>
}

/** The vendor cache in a fresh folder, and an input file older than the stamps' racy window. */
async function setUp(): Promise<{ cache: FolderCache; folder: string; input: string }> {
  const dir = await tempDir('oac-vendor-cache-')
  const input = join(dir, 'index.js')
  await writeFile(input, 'export const z = 1\n')
  await backdate(input, 60)
  const folder = join(dir, 'cache')
  return {
    cache: {
      read: (group, key) => vendorCache.read(folder, group, key),
      write: (group, key, inputs, value) => vendorCache.write(folder, group, key, inputs, value),
    },
    folder,
    input,
  }
}

async function backdate(file: string, seconds: number): Promise<void> {
  const past = new Date(Date.now() - seconds * 1000)
  await utimes(file, past, past)
}

async function recordFile(folder: string): Promise<string> {
  const names = await readdir(folder)
  expect(names).toHaveLength(1)
  return join(folder, names[0]!)
}

describe('the vendor cache', () => {
  it('gives back what was recorded for the same group and key while its inputs are as they were', async () => {
    const { cache, input } = await setUp()
    expect(await cache.read('/pkg/zod', 'index')).toBeUndefined()
    await cache.write('/pkg/zod', 'index', [input], VALUE)
    expect(await cache.read('/pkg/zod', 'index')).toEqual(VALUE)
    // Another process with the same unplugin-oac reads it too (the cache keeps no state in memory).
    expect(await vendorCache.read(join(input, '..', 'cache'), '/pkg/zod', 'index')).toEqual(VALUE)
    expect(await cache.read('/pkg/zod', 'index\0mini')).toBeUndefined()
    expect(await cache.read('/pkg/other', 'index')).toBeUndefined()
  })

  it('misses once an input changed, even to a file of the same size', async () => {
    const { cache, input } = await setUp()
    await cache.write('/pkg/zod', 'index', [input], VALUE)
    await writeFile(input, 'export const y = 2\n')
    await backdate(input, 30)
    expect(await cache.read('/pkg/zod', 'index')).toBeUndefined()
  })

  it('records nothing built from a file modified moments ago, or missing', async () => {
    const { cache, input } = await setUp()
    await writeFile(input, 'export const z = 3\n')
    await cache.write('/pkg/zod', 'index', [input], VALUE)
    expect(await cache.read('/pkg/zod', 'index')).toBeUndefined()
    await cache.write('/pkg/zod', 'index', [join(input, '..', 'missing.js')], VALUE)
    expect(await cache.read('/pkg/zod', 'index')).toBeUndefined()
  })

  it('misses on a record of another unplugin-oac version, and on a damaged record', async () => {
    const { cache, folder, input } = await setUp()
    await cache.write('/pkg/zod', 'index', [input], VALUE)
    const file = await recordFile(folder)
    const text = await readFile(file, 'utf8')
    // As another version of unplugin-oac would have made it.
    const build = await ownBuild()
    expect(text).toContain(JSON.stringify(build).slice(1, -1))
    await writeFile(file, text.replace(build, `9.9.9${build.slice(build.indexOf('@'))}`))
    expect(await cache.read('/pkg/zod', 'index')).toBeUndefined()
    await writeFile(file, text.slice(0, text.length / 2))
    expect(await cache.read('/pkg/zod', 'index')).toBeUndefined()
    // A build then records it again, whole.
    await cache.write('/pkg/zod', 'index', [input], VALUE)
    expect(await cache.read('/pkg/zod', 'index')).toEqual(VALUE)
    expect(await readdir(folder)).toHaveLength(1)
  })

  it('never fails a build: a folder it cannot write is a miss', async () => {
    const { input } = await setUp()
    // A file where the cache folder should be.
    await expect(vendorCache.write(join(input, 'cache'), '/pkg/zod', 'index', [input], VALUE)).resolves.toBeUndefined()
    expect(await vendorCache.read(join(input, 'cache'), '/pkg/zod', 'index')).toBeUndefined()
  })

  it('lives in the node_modules folder that holds the package, and makes no node_modules folder elsewhere', () => {
    const at = (...parts: string[]) => join('/', ...parts)
    expect(cacheFolderOf(at('app', 'node_modules', 'zod'))).toBe(at('app', 'node_modules', '.cache', 'oac', 'vendor'))
    expect(cacheFolderOf(at('app', 'node_modules', '@sinclair', 'typebox'))).toBe(at('app', 'node_modules', '.cache', 'oac', 'vendor'))
    // pnpm's real paths nest node_modules folders: the project's is the outermost.
    expect(cacheFolderOf(at('app', 'node_modules', '.pnpm', 'zod@4.1.0', 'node_modules', 'zod'))).toBe(at('app', 'node_modules', '.cache', 'oac', 'vendor'))
    // unplugin-oac run from its own checkout, which has its dependencies installed.
    expect(cacheFolderOf(at('src', 'unplugin-oac'))).toBe(at('src', 'unplugin-oac', 'node_modules', '.cache', 'oac', 'vendor'))
  })
})
