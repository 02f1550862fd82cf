import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { backdate } from '../plugin/watchers.js'
import { run } from '../util/process.js'
import { copyProject, repoRoot } from '../util/project.js'

/** The `oac:bundle` lines of a stderr text, without their prefix. */
function bundleLines(stderr: string): string[] {
  return [...stderr.matchAll(/^OAC:BUNDLE \d+: (.*)$/gm)].map((match) => match[1]!)
}

describe('NODE_DEBUG=oac:bundle names each esbuild build of scripts and vendor files', () => {
  it('a compile builds each package’s vendor files once, with every module some file imports; an edit rebuilds one tool’s script and nothing else; a new process takes the vendor files from the cache', async () => {
    // The mcp-tools project has zod tools and a @sinclair/typebox tool, whose input check imports
    // another module of that package (its `value`) than the tool does.
    const project = await copyProject(join(repoRoot, 'test/fixtures/mcp-tools'), 'oac-debug-builds-')
    // Older than the stamps' racy window, so the rebuild can tell the unedited modules apart by stamp.
    await backdate(project)
    const script = `import { readFileSync, writeFileSync } from 'node:fs'
import { Compiler } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'api.js')).href)}
const compiler = new Compiler(process.cwd())
const options = { registry: 'agents/registry.ts:registry', config: 'default' }
await compiler.generate(options)
process.stderr.write('OAC:BUNDLE 0: -- edit\\n')
const echo = 'agents/tools/echo.ts'
writeFileSync(echo, readFileSync(echo, 'utf8').replace('text.repeat(times)', 'text.repeat(times).trim()'))
await compiler.generate(options)
await compiler.dispose()
`
    await writeFile(join(project, 'debug-builds.mjs'), script)
    const compileTwice = async () => {
      const result = await run(process.execPath, ['debug-builds.mjs'], { cwd: project, env: { ...process.env, NODE_DEBUG: 'oac:bundle' } })
      expect(result.stderr, result.stderr).not.toMatch(/Error/)
      expect(result.code).toBe(0)
      const lines = bundleLines(result.stderr)
      const edit = lines.indexOf('-- edit')
      expect(edit).toBeGreaterThan(0)
      return { cold: lines.slice(0, edit), rebuild: lines.slice(edit + 1) }
    }
    const first = await compileTwice()
    // The project's node_modules is this repository's, whose vendor cache other tests may have filled.
    const vendorBuilds = first.cold.filter((line) => line.startsWith('vendor files of '))
    const packages = vendorBuilds.map((line) => /^vendor files of (.+?)@\d/.exec(line)![1])
    // Our runtime and each input check are builds of their own; every other package is built once.
    expect(packages.filter((name) => name !== 'unplugin-oac').sort()).toEqual(['@sinclair/typebox', 'zod'])
    const typebox = vendorBuilds.find((line) => line.startsWith('vendor files of @sinclair/typebox@'))!
    expect(typebox).toMatch(/build\+esm\+index\.mjs, .*build\+esm\+value\+index\.mjs$/)
    expect(first.rebuild).toEqual(['tool scripts: echo'])
    // Each bare import is resolved once per folder, though four tool modules there import zod at once.
    const resolutions = first.cold.filter((line) => / of "[^"]+" in /.test(line))
    expect(new Set(resolutions).size).toBe(resolutions.length)
    const zod = resolutions.filter((line) => line.startsWith(`import-statement of "zod" in ${join(project, 'agents', 'tools')}: `))
    expect(zod).toHaveLength(1)
    expect(zod[0]).toMatch(/: vendor\/zod@[^/]+\/index\.mjs$/)
    // The edit is in the rebuilt script.
    expect(await readFile(join(project, 'agents/tools/echo.ts'), 'utf8')).toContain('.trim()')

    // A second process builds the tools' scripts and takes every vendor file from the cache.
    await writeFile(join(project, 'agents/tools/echo.ts'), (await readFile(join(project, 'agents/tools/echo.ts'), 'utf8')).replace('.trim()', ''))
    await backdate(project)
    const second = await compileTwice()
    const vendor = second.cold.filter((line) => line.startsWith('vendor file'))
    expect(vendor.length).toBe(vendorBuilds.length + 1)
    for (const line of vendor) expect(line).toContain('from the cache')
    expect(second.rebuild).toEqual(['tool scripts: echo'])
  })
})
