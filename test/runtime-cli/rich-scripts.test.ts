import { readdir, readFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runNode } from '../bundle/fixture.js'
import { GIF_BYTES, RED_PIXEL } from '../fixtures/rich-results/agents/tools/pixels.js'
import { buildFixtureServer, type BuiltServer } from '../mcp/server-fixture.js'
import { repoRoot } from '../util/project.js'
import { tempDir } from '../util/temp.js'

// The rich-results fixture's scripts, built with the real pipeline into a target away from the
// project, run as the bash route runs them (and, with --envelope, as the shims' process bridge does).
let built: BuiltServer

beforeAll(async () => {
  // Copilot CLI and Cline read a result's text alone (tool-result-text-only).
  built = await buildFixtureServer(resolve(repoRoot, 'test/fixtures/rich-results'), ['approval-unsupported', 'approval-unsupported', 'tool-output-not-object', 'tool-result-text-only', 'tool-result-text-only'])
})
afterAll(() => built?.remove())

/** Runs a script with its own OS temp folder, where the images it writes land. */
async function script(args: string[], stdin?: string) {
  const tmp = await tempDir('oac-rich-tmp-')
  const result = await runNode(built.target, args, { stdin, env: { TMPDIR: tmp, TMP: tmp, TEMP: tmp } })
  return { ...result, tmp }
}

/** What a script wrote into its temp folder, Node's own compile cache (Node 22 and later) aside. */
async function written(tmp: string): Promise<string[]> {
  return (await readdir(tmp)).filter((name) => name !== 'node-compile-cache')
}

describe('the bash route', () => {
  it('prints the text on stdout, writes each image to a file in a new temp folder, and prints their paths and the details on stderr', async () => {
    const { code, stdout, stderr, tmp } = await script(['scripts/chart.mjs', '--points', '5'])
    expect(code).toBe(0)
    expect(stdout).toBe('A chart of 5 points.\n')
    const [folder, ...others] = await written(tmp)
    expect(others).toEqual([])
    expect(folder).toMatch(/^oac-chart-/)
    const png = join(tmp, folder!, 'image-1.png')
    const gif = join(tmp, folder!, 'image-2.gif')
    expect(stderr).toBe(`image: ${png} (image/png)\nimage: ${gif} (image/gif)\ndetails: {"points":5,"drawnBy":"chart"}\n`)
    expect((await readFile(png)).toString('base64')).toBe(RED_PIXEL)
    expect([...(await readFile(gif))]).toEqual(GIF_BYTES)
  })

  it('gives every call a folder of its own, and prints nothing on stdout for images alone', async () => {
    const first = await script(['scripts/chart.mjs', '--no-caption'])
    expect(first.code).toBe(0)
    expect(first.stdout).toBe('')
    const second = await runNode(built.target, ['scripts/chart.mjs'], { env: { TMPDIR: first.tmp, TMP: first.tmp, TEMP: first.tmp } })
    expect(second.code).toBe(0)
    expect(await written(first.tmp)).toHaveLength(2)
  })

  it('prints structured output as JSON on stdout, its defaults filled in', async () => {
    const { code, stdout, stderr } = await script(['scripts/measure.mjs', '--text', 'a b c'])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({ length: 5, words: 3, unit: 'chars' })
  })

  it('exits 1 with the message, naming the field, when the value does not match the output schema', async () => {
    const { code, stdout, stderr } = await script(['scripts/measure.mjs', '--text', 'x', '--lie'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('The tool "measure" returned a value that does not match its output schema:\nlength: expected number, got "long"\n')
  })

  it('exits 1 with the message of an error result, its details on stderr too', async () => {
    const { code, stdout, stderr } = await script(['scripts/refuse.mjs', '--branch', 'dev'])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe('No branch named dev.\ndetails: {"known":["main"]}\n')
  })

  it('documents the envelope, the image files and the exit codes in --help', async () => {
    const { stdout } = await script(['scripts/chart.mjs', '--help'])
    expect(stdout).toContain('--envelope 1    print the result as one JSON object')
    expect(stdout).toContain('Images a tool returns are written to files in a new temp folder')
  })
})

describe('the result envelope (--envelope 1), which the process bridge reads', () => {
  const envelope = async (tool: string, input: object) => {
    const result = await script([`scripts/${tool}.mjs`, '--json', '--envelope', '1'], JSON.stringify(input))
    expect(result.stdout.endsWith('\n')).toBe(true)
    expect(result.stdout.trimEnd()).not.toContain('\n')
    return { ...result, envelope: JSON.parse(result.stdout) as unknown }
  }

  it('holds the text, images as base64 and details in one line of JSON, and writes no files', async () => {
    const { code, envelope: body, stderr, tmp } = await envelope('chart', { points: 2 })
    expect(code).toBe(0)
    expect(stderr).toBe('')
    expect(body).toEqual({
      envelope: 1,
      ok: true,
      text: 'A chart of 2 points.',
      images: [
        { data: RED_PIXEL, mimeType: 'image/png' },
        { data: Buffer.from(GIF_BYTES).toString('base64'), mimeType: 'image/gif' },
      ],
      details: { points: 2, drawnBy: 'chart' },
    })
    expect(await written(tmp)).toEqual([])
  })

  it('holds structured output next to its text', async () => {
    const { code, envelope: body } = await envelope('measure', { text: 'hi' })
    expect(code).toBe(0)
    expect(body).toEqual({ envelope: 1, ok: true, text: '{\n  "length": 2,\n  "words": 1,\n  "unit": "chars"\n}', structured: { length: 2, words: 1, unit: 'chars' } })
  })

  it('holds a failed call, with its details and without the stack, and keeps the exit codes', async () => {
    const refused = await envelope('refuse', { branch: 'dev' })
    expect(refused.code).toBe(1)
    expect(refused.envelope).toEqual({ envelope: 1, ok: false, kind: 'tool-error', message: 'No branch named dev.', details: { known: ['main'] } })
    const invalid = await envelope('measure', { text: 3 })
    expect(invalid.code).toBe(2)
    expect(invalid.envelope).toEqual({ envelope: 1, ok: false, kind: 'invalid-input', message: 'text: expected string, got 3' })
    const notJson = await script(['scripts/measure.mjs', '--json', '--envelope', '1'], '{')
    expect(notJson.code).toBe(2)
    expect(JSON.parse(notJson.stdout)).toMatchObject({ envelope: 1, ok: false, kind: 'invalid-input', message: expect.stringMatching(/^invalid JSON on stdin: /) })
  })

  it('refuses a version it does not write, saying to build again', async () => {
    const { code, stdout, stderr } = await script(['scripts/chart.mjs', '--json', '--envelope', '2'], '{}')
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toBe('--envelope 2: this script writes result envelope 1. Build the tree again, so that its shims and scripts match.\n')
  })
})
