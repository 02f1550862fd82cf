// Type checks of defineHook, run by `npm run typecheck` (tsc): each @ts-expect-error is a use the types must refuse.
import { z } from 'zod'
import { defineHook, defineTool } from '../../src/index.js'

const deleteReport = defineTool({ name: 'delete_report', description: 'd', input: z.object({ path: z.string() }), run: () => 'ok' })
export const guard = defineHook({
  name: 'guard',
  description: 'x',
  on: 'beforeTool',
  tools: [deleteReport, 'shell'],
  run(event, ctx) {
    if (event.tool === 'delete_report' && event.input.path.startsWith('prod/')) return ctx.block('kept')
    if (event.tool === 'shell' && /rm\s+-rf/.test(String(event.input.command))) return ctx.block('no rm -rf')
    // @ts-expect-error a beforeTool ctx has no addContext
    ctx.addContext('x')
    // @ts-expect-error not a tool this hook watches
    if (event.tool === 'read') return undefined
    return undefined
  },
})
export const ctxHook = defineHook({ name: 'c', description: 'x', on: 'sessionStart', run: (event, ctx) => ctx.addContext(`in ${event.cwd}`) })
export const any = defineHook({ name: 'a', description: 'x', on: 'afterTool', run: (event, ctx) => (event.result.isError ? ctx.addContext(event.tool) : undefined) })
// @ts-expect-error a stop hook cannot block
export const bad = defineHook({ name: 'b', description: 'x', on: 'stop', run: (_event, ctx) => ctx.block('x') })
