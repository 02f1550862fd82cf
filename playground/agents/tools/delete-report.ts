import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

// Destructive: the config's approval rules make every harness ask before it runs.
export const deleteReport = defineTool({
  name: 'delete_report',
  description: 'Delete a report from the reports/ folder of the project. It cannot be undone.',
  input: z.object({ name: z.string().regex(/^[\w-]+$/).describe('The report\'s name, without folder or .md') }),
  effects: { destructive: true, idempotent: true },
  async run({ name }, ctx) {
    const folder = join(ctx.cwd, 'reports')
    const reports = await readdir(folder).catch(() => [] as string[])
    if (!reports.includes(`${name}.md`)) {
      return ctx.error(`There is no report named "${name}".`, { details: { folder, reports } })
    }
    await rm(join(folder, `${name}.md`))
    return `Deleted reports/${name}.md.`
  },
})
