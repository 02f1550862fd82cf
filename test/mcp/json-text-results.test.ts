import { resolve } from 'node:path'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENVELOPE_VERSION, type InvokeResult } from '../../src/runtime/types.js'
import { GEMINI_CLI_CLIENT } from '../../src/runtime/mcp-server.js'
import { run } from '../util/process.js'
import { repoRoot } from '../util/project.js'
import { buildFixtureServer, type BuiltServer, type Connection, connect } from './server-fixture.js'

/*
 * Tool results whose text is a JSON value, through the playground's `sample_value` served by the real
 * bundled server and called with the official SDK client, once under the name Gemini CLI's client
 * gives itself and once under other names. Gemini CLI stores `JSON.parse` of a result's first text
 * as its `structuredContent` when the result has none, and its SDK refuses any value but an object:
 * for Gemini the server gives such a value's object form itself. The real CLIs' side of it is
 * test/harness/json-values.test.ts.
 */

const KINDS = ['number', 'boolean', 'null', 'json_string', 'array', 'object', 'text', 'empty'] as const
/** The kinds whose text parses as a JSON value that is not an object. */
const NOT_OBJECTS = ['number', 'boolean', 'null', 'json_string', 'array']
/** Qwen Code's client (`qwen-cli-mcp-client-<server>`): a Gemini fork without that transport, which shows the model a `structuredContent`. */
const OTHER_CLIENTS = ['oac-test', 'qwen-cli-mcp-client-oac-tools']

let built: BuiltServer
const connections: Connection[] = []

beforeAll(async () => {
  // Copilot CLI and Cline read a result's text alone: the playground's chart loses its image there.
  built = await buildFixtureServer(resolve(repoRoot, 'playground'), ['tools-not-scoped', 'approval-unsupported', 'approval-unsupported', 'tool-result-text-only', 'tool-result-text-only'], { config: 'prod' })
})

afterAll(async () => {
  for (const connection of connections) await connection.close()
  await built?.remove()
})

async function client(name: string): Promise<Connection> {
  const connection = await connect(built.target, { clientName: name })
  connections.push(connection)
  return connection
}

/** The text the tool script itself gives for a kind (its result envelope): what every client must read. */
async function scriptText(kind: string): Promise<string> {
  const result = await run(process.execPath, ['scripts/sample_value.mjs', '--json', '--envelope', ENVELOPE_VERSION], { cwd: built.target, stdin: JSON.stringify({ kind }) })
  const envelope = JSON.parse(result.stdout) as InvokeResult
  if (!envelope.ok) throw new Error(`sample_value failed for ${kind}: ${envelope.message}`)
  return envelope.text
}

/**
 * The `structuredContent` Gemini CLI's client goes on with: the result's own, else what its
 * `McpComplianceTransport.fixStructuredContent` stores, `JSON.parse` of the first text (undefined where it does not parse).
 */
function complianceStructured(result: CallToolResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent
  const first = result.content[0]
  if (first?.type !== 'text') return undefined
  try {
    return JSON.parse(first.text) as unknown
  } catch {
    return undefined
  }
}

const call = (connection: Connection, kind: string) => connection.client.callTool({ name: 'sample_value', arguments: { kind } }) as Promise<CallToolResult>

describe('MCP server: a text that is a JSON value', () => {
  it('gives Gemini CLI the text as it is and, for a value that is not an object, that value as { result } in structuredContent', async () => {
    const gemini = await client(GEMINI_CLI_CLIENT)
    for (const kind of KINDS) {
      const text = await scriptText(kind)
      const result = await call(gemini, kind)
      expect(result.content, kind).toEqual([{ type: 'text', text }])
      if (NOT_OBJECTS.includes(kind)) expect(result.structuredContent, kind).toEqual({ result: JSON.parse(text) })
      else expect(result, kind).not.toHaveProperty('structuredContent')
      const stored = complianceStructured(result)
      expect(stored === undefined || (typeof stored === 'object' && stored !== null && !Array.isArray(stored)), kind).toBe(true)
    }
  })

  it('gives every other client exactly the text, and nothing else', async () => {
    for (const name of OTHER_CLIENTS) {
      const other = await client(name)
      for (const kind of KINDS) expect(await call(other, kind), `${name} ${kind}`).toEqual({ content: [{ type: 'text', text: await scriptText(kind) }] })
    }
  })

  it("leaves a tool's own structured output as it is for Gemini CLI", async () => {
    const input = { name: 'forecast', arguments: { city: 'Oslo', days: 2 } }
    const gemini = await (await client(GEMINI_CLI_CLIENT)).client.callTool(input)
    const other = await (await client('oac-test')).client.callTool(input)
    expect(gemini).toEqual(other)
    expect(gemini.structuredContent).toMatchObject({ city: 'Oslo', units: 'metric' })
  })
})
