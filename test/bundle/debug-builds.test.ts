import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { backdate } from '../plugin/watchers.js'
import { run } from '../util/process.js'
import { copyProject, repoRoot } from '../util/project.js'

/** The lines of one debug section (`BUNDLE`, say) in a stderr text, without their prefix. */
function debugLines(stderr: string, section: string): string[] {
  return [...stderr.matchAll(new RegExp(`^OAC:${section} \\d+: (.*)$`, 'gm'))].map((match) => match[1]!)
}

/**
 * Runs `steps` in a Node process in `project`, after a watch Compiler (`compiler`) and the options of
 * its builds (`options`) are made, with NODE_DEBUG set; its stderr.
 */
async function debugRun(project: string, nodeDebug: string, steps: string): Promise<string> {
  const script = `import { readFileSync, writeFileSync } from 'node:fs'
import { Compiler } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'dist', 'api.js')).href)}
const compiler = new Compiler(process.cwd())
const options = { registry: 'agents/registry.ts:registry', config: 'default' }
${steps}
await compiler.dispose()
`
  await writeFile(join(project, 'debug-run.mjs'), script)
  const result = await run(process.execPath, ['debug-run.mjs'], { cwd: project, env: { ...process.env, NODE_DEBUG: nodeDebug } })
  expect(result.stderr, result.stderr).not.toMatch(/Error/)
  expect(result.code).toBe(0)
  return result.stderr
}

describe('NODE_DEBUG=oac:bundle names each esbuild build of scripts and vendor files', () => {
  it('a compile builds each package’s vendor files once, with every module some file imports; an edit rebuilds one tool’s script and nothing else; a new process takes the vendor files from the cache', async () => {
    // The mcp-tools project has zod tools and a @sinclair/typebox tool, whose input check imports
    // another module of that package (its `value`) than the tool does.
    const project = await copyProject(join(repoRoot, 'test/fixtures/mcp-tools'), 'oac-debug-builds-')
    // Older than the stamps' racy window, so the rebuild can tell the unedited modules apart by stamp.
    await backdate(project)
    const compileTwice = async () => {
      const stderr = await debugRun(
        project,
        'oac:bundle',
        `await compiler.generate(options)
process.stderr.write('OAC:BUNDLE 0: -- edit\\n')
const echo = 'agents/tools/echo.ts'
writeFileSync(echo, readFileSync(echo, 'utf8').replace('text.repeat(times)', 'text.repeat(times).trim()'))
await compiler.generate(options)`,
      )
      const lines = debugLines(stderr, 'BUNDLE')
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

describe('NODE_DEBUG=oac:rebuild says which of the registry’s modules a watch rebuild runs again', () => {
  it('an edit of a definition runs its module and the registry again; an edit right after it, only inside a run body, runs none', async () => {
    const project = await copyProject(join(repoRoot, 'test/fixtures/mcp-tools'), 'oac-debug-rebuild-')
    await backdate(project)
    const stderr = await debugRun(
      project,
      'oac:rebuild',
      `const echo = 'agents/tools/echo.ts'
await compiler.generate(options)
writeFileSync(echo, readFileSync(echo, 'utf8').replace('Repeats text', 'Repeats any text'))
await compiler.generate(options)
writeFileSync(echo, readFileSync(echo, 'utf8').replace('text.repeat(times)', 'text.repeat(times).trim()'))
await compiler.generate(options)`,
    )
    const echo = join(project, 'agents/tools/echo.ts')
    const lines = debugLines(stderr, 'REBUILD')
    expect(lines).toHaveLength(2)
    // The tool's module and the registry module; the other tool modules (and the files of this
    // package, which the fixture links from outside node_modules) are kept.
    expect(lines[0]?.replace(/ of its \d+ modules /, ' of its N modules ')).toBe(`registry: ${echo} changed; 2 of its N modules run again`)
    expect(lines[1]).toBe(`registry: ${echo} changed only inside a tool’s run body; its definitions are kept`)
  })
})
