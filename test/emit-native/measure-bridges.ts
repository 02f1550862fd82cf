/*
 * Prints the cost of one tool call through a native shim with each bridge (process: a Node start
 * per call; inline: an import once, then a function call). Not a test: timing never goes into one.
 *   npx jiti test/emit-native/measure-bridges.ts
 */
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildTarget, fixturePlan, linkedTempDir } from './fixture.js'

const CALLS = 30

interface PiTool {
  name: string
  execute(id: string, params: unknown, signal: AbortSignal | undefined, onUpdate: undefined, ctx: { cwd: string }): Promise<unknown>
}

async function perCall(bridge: 'process' | 'inline'): Promise<{ first: number; mean: number }> {
  const target = await buildTarget(await fixturePlan({ bridge }), await linkedTempDir())
  const factory = (await import(pathToFileURL(join(target, '.pi/extensions/oac-tools.ts')).href)).default as (pi: unknown) => void
  const tools: PiTool[] = []
  factory({ registerTool: (tool: PiTool) => tools.push(tool) })
  const count = tools.find((tool) => tool.name === 'count')!
  const call = () => count.execute('id', { to: 1 }, undefined, undefined, { cwd: target })
  let start = performance.now()
  await call()
  const first = performance.now() - start
  start = performance.now()
  for (let i = 0; i < CALLS; i++) await call()
  const mean = (performance.now() - start) / CALLS
  await rm(target, { recursive: true, force: true })
  return { first, mean }
}

const processed = await perCall('process')
const inline = await perCall('inline')
console.log(`bridge   first call   mean of ${CALLS} later calls`)
console.log(`process  ${processed.first.toFixed(1).padStart(7)} ms   ${processed.mean.toFixed(2).padStart(8)} ms`)
console.log(`inline   ${inline.first.toFixed(1).padStart(7)} ms   ${inline.mean.toFixed(2).padStart(8)} ms`)
console.log(`process / inline, later calls: ${(processed.mean / inline.mean).toFixed(0)}x`)
