import { resolve } from 'node:path'
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GIF_BYTES, RED_PIXEL } from '../fixtures/rich-results/agents/tools/pixels.js'
import { repoRoot } from '../util/project.js'
import { buildFixtureServer, type BuiltServer, type Connection, connect, eventually } from './server-fixture.js'

// The rich-results fixture served by the real bundled server, driven by the official SDK client, which
// checks every structuredContent against the tool's outputSchema itself (its default validator, ajv).
const RICH_FIXTURE = resolve(repoRoot, 'test/fixtures/rich-results')

let built: BuiltServer
let server: Connection
const logs: LoggingMessageNotification['params'][] = []

beforeAll(async () => {
  // Copilot has no permission settings for the approval rules; listing's output is a list, which MCP
  // cannot carry as structured output; Copilot CLI and Cline read a result's text alone.
  built = await buildFixtureServer(RICH_FIXTURE, ['approval-unsupported', 'approval-unsupported', 'tool-output-not-object', 'tool-result-text-only', 'tool-result-text-only'])
  server = await connect(built.target)
  server.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    logs.push(notification.params)
  })
  // The client validates structured output only for tools whose schemas it has listed.
  await server.client.listTools()
})

afterAll(async () => {
  await server?.close()
  await built?.remove()
})

describe('MCP server: rich results', () => {
  it('lists the output schema of a tool whose output is an object, and the annotations of its effects', async () => {
    const { tools } = await server.client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    expect(byName.get('measure')!.outputSchema).toEqual(built.plan.tools.find((tool) => tool.name === 'measure')!.output)
    // Its output side: the default fills `unit` in, so it is required there.
    expect(byName.get('measure')!.outputSchema).toMatchObject({ type: 'object', required: ['length', 'words', 'unit'] })
    expect(byName.get('measure')!.annotations).toEqual({ readOnlyHint: true, idempotentHint: true })
    expect(byName.get('erase')!.annotations).toEqual({ destructiveHint: true, openWorldHint: false })
    expect(byName.get('chart')!.annotations).toEqual({ readOnlyHint: true })
    // A list cannot be structuredContent; a tool that declares no effects has no annotations.
    expect(byName.get('listing')!.outputSchema).toBeUndefined()
    expect(byName.get('refuse')!.annotations).toBeUndefined()
  })

  it('gives structured output as structuredContent, which the client checks against the schema, and the JSON as text', async () => {
    const result = await server.client.callTool({ name: 'measure', arguments: { text: 'two words' } })
    const value = { length: 9, words: 2, unit: 'chars' }
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value })
  })

  it('turns a value the output schema refuses into isError naming the field, before the client sees it', async () => {
    const result = await server.client.callTool({ name: 'measure', arguments: { text: 'x', lie: true } })
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toBeUndefined()
    expect(result.content).toEqual([
      { type: 'text', text: 'Tool "measure" failed: The tool "measure" returned a value that does not match its output schema:\nlength: expected number, got "long"' },
    ])
  })

  it('gives a list output as JSON text only', async () => {
    const result = await server.client.callTool({ name: 'listing', arguments: {} })
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(['name-1', 'name-2'], null, 2) }] })
  })

  it('gives images as image content next to the text, and the details as a log message of the tool', async () => {
    const result = await server.client.callTool({ name: 'chart', arguments: { points: 4 } })
    expect(result).toEqual({
      content: [
        { type: 'text', text: 'A chart of 4 points.' },
        { type: 'image', data: RED_PIXEL, mimeType: 'image/png' },
        { type: 'image', data: Buffer.from(GIF_BYTES).toString('base64'), mimeType: 'image/gif' },
      ],
    })
    // The log message goes out before the result, as a notification of the call.
    expect(logs).toContainEqual({ level: 'info', logger: 'chart', data: { points: 4, drawnBy: 'chart' } })
    const imagesOnly = await server.client.callTool({ name: 'chart', arguments: { caption: false } })
    expect((imagesOnly.content as Array<{ type: string }>).map((block) => block.type)).toEqual(['image', 'image'])
  })

  it('marks an error result isError with its message, details to the log, and passes the same tool\'s value when it succeeds', async () => {
    const failed = await server.client.callTool({ name: 'refuse', arguments: { branch: 'dev' } })
    expect(failed).toEqual({ content: [{ type: 'text', text: 'Tool "refuse" failed: No branch named dev.' }], isError: true })
    await eventually(async () => logs.find((entry) => entry.logger === 'refuse'), 'the details of refuse')
    expect(logs).toContainEqual({ level: 'info', logger: 'refuse', data: { known: ['main'] } })
    expect(await server.client.callTool({ name: 'refuse', arguments: { branch: 'main' } })).toMatchObject({ structuredContent: { sha: 'abc123' } })
  })

  it('sends no details at a level the client has turned down', async () => {
    await server.client.setLoggingLevel('warning')
    const before = logs.length
    await server.client.callTool({ name: 'chart', arguments: {} })
    await server.client.setLoggingLevel('info')
    await server.client.callTool({ name: 'chart', arguments: { points: 1 } })
    await eventually(async () => logs.find((entry) => (entry.data as { points?: number }).points === 1), 'the details at level info')
    expect(logs.slice(before).map((entry) => (entry.data as { points: number }).points)).toEqual([1])
  })
})
