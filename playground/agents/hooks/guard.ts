import { defineHook } from 'unplugin-oac'
import { deleteReport } from '../tools/delete-report.ts'

// Runs before every call of delete_report and of the harness's shell tool, in all nine harnesses.
export const guard = defineHook({
  name: 'guard',
  description: 'Keeps the reports whose name starts with "prod-" and refuses rm -rf.',
  on: 'beforeTool',
  tools: [deleteReport, 'shell'],
  run(event, ctx) {
    if (event.tool === 'delete_report' && event.input.name.startsWith('prod-')) return ctx.block('prod reports are kept: ask a person to delete one')
    if (event.tool === 'shell' && /\brm\s+-(?:[a-z]*r[a-z]*f|[a-z]*f[a-z]*r)/i.test(String(event.input.command))) return ctx.block('no rm -rf in this project')
    return undefined
  },
})
