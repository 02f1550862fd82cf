import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { parse } from 'smol-toml'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { JsonValue } from '../../src/define/types.js'
import { ARRAY_ITEM, type MergeEntry, type MergeFile } from '../../src/emit/types.js'
import { writeOutputs } from '../../src/write/index.js'
import { jsoncStyle, printJsonc } from './jsonc-print.js'
import { printToml, userToml } from './toml-print.js'

/**
 * The last compile that takes all our entries out of a user's file gives back the user's exact bytes,
 * whatever the merges before it created for them: parent objects and lists, the comma after the
 * user's last member, a document in a file that held none, the line break a file without a final one
 * needed before our text. Random user files (JSONC and TOML, comments, odd whitespace, CRLF, a BOM,
 * no final newline, empty) go through random sequences of compiles that add and remove our entries.
 */

let root: string
let runs = 0
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'oac-removal-prop-'))
})
afterAll(async () => {
  await rm(root, { recursive: true, force: true })
})

/** How the user's file is laid out around its document: a BOM, and how its text ends. */
interface Framing {
  bom: boolean
  /** `keep`: as printed (one final line break); `strip`: no final line break; `empty`: a file with no document at all. */
  ending: 'keep' | 'strip' | 'empty'
  /** For `empty`: what the file holds instead (nothing, blank lines, a comment). */
  filler: string
}

function framing(fillers: string[]): fc.Arbitrary<Framing> {
  return fc.record({ bom: fc.boolean(), ending: fc.constantFrom('keep' as const, 'keep' as const, 'strip' as const, 'empty' as const), filler: fc.constantFrom(...fillers) })
}

function frame(printed: string, { bom, ending, filler }: Framing): string {
  const body = ending === 'empty' ? filler : ending === 'strip' ? printed.replace(/\r?\n$/, '') : printed
  return (bom ? '\uFEFF' : '') + body
}

/** Compiles: each one writes the picked entries (true) and none of the others; the last one writes none. */
const compiles = (candidates: number): fc.Arbitrary<boolean[][]> =>
  fc.array(fc.array(fc.boolean(), { minLength: candidates, maxLength: candidates }), { minLength: 1, maxLength: 6 })

async function runCompiles(format: MergeFile['format'], path: string, original: string, candidates: MergeEntry[], sequence: boolean[][]): Promise<void> {
  const target = join(root, `run-${runs++}`)
  await mkdir(join(target, path, '..'), { recursive: true })
  await writeFile(join(target, path), original)
  for (const picks of [...sequence, candidates.map(() => false)]) {
    const entries = candidates.filter((_, i) => picks[i])
    const report = await writeOutputs([{ kind: 'merge', path, format, entries }], { target, mode: 'write', force: false, owner: 'oac-tools' })
    expect(report.diagnostics).toEqual([])
  }
  expect(await readFile(join(target, path), 'utf8')).toBe(original)
  await rm(target, { recursive: true, force: true })
}

const item = (list: string[], name: string): MergeEntry => ({ keyPath: [...list, ARRAY_ITEM, name], value: name })

describe('removing our last entries gives back the user’s bytes (JSON and JSONC settings files)', () => {
  // What our merges write into the settings files of the nine harnesses: servers, permission items of
  // each layout (Claude and Qwen `permissions.allow|ask`, Gemini `tools.allowed|confirmationRequired`),
  // opencode's and Kilo's `permission` map, and a key two levels down.
  const candidates: MergeEntry[] = [
    { keyPath: ['mcpServers', 'oac-tools'], value: { command: 'node', args: ['scripts/mcp_tools_server.cjs'] } },
    item(['permissions', 'allow'], 'mcp__oac-tools__forecast'),
    item(['permissions', 'ask'], 'mcp__oac-tools__delete_report'),
    item(['tools', 'allowed'], 'mcp_oac-tools_forecast'),
    item(['tools', 'confirmationRequired'], 'mcp_oac-tools_delete_report'),
    { keyPath: ['permission', 'forecast'], value: 'allow' },
    { keyPath: ['agent', 'planner', 'permission'], value: { forecast: 'allow' } },
  ]
  // The user's own keys, some of them the containers our entries go into (with other things in them).
  const userKey = fc.constantFrom('mcpServers', 'permissions', 'tools', 'permission', 'agent', 'theme', 'model', 'x')
  const userInner: fc.Arbitrary<JsonValue> = fc.oneof(
    fc.dictionary(fc.constantFrom('allow', 'deny', 'other', 'core', 'exclude', 'github'), fc.oneof(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<JsonValue>), { maxKeys: 3 }),
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>,
  )
  const userDocument = fc.tuple(fc.dictionary(userKey, userInner, { maxKeys: 4 }), fc.boolean()).map(([doc, emptyLists]) => {
    // A key of ours the user wrote is theirs (test/write/ownership*.test.ts); here every container either
    // holds other things, is empty or is absent, and a parent of ours that is not an object would be refused.
    const plain: { [key: string]: JsonValue } = {}
    for (const [key, value] of Object.entries(doc)) {
      if (['mcpServers', 'permissions', 'tools', 'permission', 'agent'].includes(key) && (typeof value !== 'object' || value === null || Array.isArray(value))) continue
      const inner = { ...(value as { [key: string]: JsonValue }) }
      // The lists our items go into are absent, or (as users leave them) empty.
      if (key === 'permissions' || key === 'tools') for (const list of ['allow', 'ask', 'allowed', 'confirmationRequired']) delete inner[list]
      if (emptyLists && key === 'permissions') Object.assign(inner, { allow: [], ask: [] })
      if (emptyLists && key === 'tools') Object.assign(inner, { allowed: [] })
      if (key === 'mcpServers') delete inner['oac-tools']
      if (key === 'permission') delete inner.forecast
      if (key === 'agent') delete inner.planner
      plain[key] = key === 'mcpServers' || key === 'permissions' || key === 'tools' || key === 'permission' || key === 'agent' ? inner : (value as JsonValue)
    }
    return plain
  })

  it('whatever the compiles before it added and took away, in any order', async () => {
    await fc.assert(
      fc.asyncProperty(userDocument, jsoncStyle, framing(['', '\n', '\r\n\r\n', '// nothing here yet\n', '/* empty */']), compiles(candidates.length), async (doc, style, frameStyle, sequence) => {
        await runCompiles('json', '.claude/settings.json', frame(printJsonc(doc, style), frameStyle), candidates, sequence)
      }),
      { numRuns: 300 },
    )
  }, 300_000)
})

describe('removing our last entries gives back the user’s bytes (Codex TOML)', () => {
  const candidates: MergeEntry[] = [
    { keyPath: ['name'], value: 'reviewer' },
    { keyPath: ['developer_instructions'], value: 'Review.\nBe brief.' },
    { keyPath: ['mcp_servers', 'oac-tools'], value: { command: 'node', args: ['scripts/mcp_tools_server.cjs'] } },
    { keyPath: ['model'], value: 'gpt-5' },
    { keyPath: ['mcp_servers', 'oac-more'], value: { command: 'node', args: ['scripts/oac-more/mcp_tools_server.cjs'], tools: { forecast: { approval_mode: 'approve' } } } },
  ]
  const parses = (text: string): boolean => {
    try {
      parse(text)
      return true
    } catch {
      return false
    }
  }

  it('whatever the compiles before it added and took away, in any order', async () => {
    let ran = 0
    await fc.assert(
      fc.asyncProperty(userToml, framing(['', '\n', '\r\n', '# nothing here yet\n', '# no final line break']), compiles(candidates.length), async (doc, frameStyle, sequence) => {
        const { text } = printToml(doc)
        // The user's own key or server of ours is theirs (test/write/ownership*.test.ts).
        const value = parses(text) ? (parse(text) as Record<string, unknown>) : undefined
        const servers = value?.mcp_servers as Record<string, unknown> | undefined
        fc.pre(value !== undefined && ['name', 'developer_instructions', 'model'].every((key) => value[key] === undefined) && servers?.['oac-tools'] === undefined && servers?.['oac-more'] === undefined)
        ran++
        await runCompiles('toml', '.codex/agents/reviewer.toml', frame(text, frameStyle), candidates, sequence)
      }),
      { numRuns: 300 },
    )
    expect(ran).toBeGreaterThan(200)
  }, 300_000)
})
