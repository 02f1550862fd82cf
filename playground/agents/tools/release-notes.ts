import { defineTool } from 'unplugin-oac'
import { z } from 'zod'

// A bash-route-only tool (json: false): agents run it as a command; no native form is generated.
export const releaseNotes = defineTool({
  name: 'release_notes',
  description: 'Turn commit subjects into Markdown release notes grouped by kind.',
  json: false,
  input: z.object({
    version: z.string().describe('The version being released'),
    commit: z.array(z.string()).min(1).describe('Commit subjects, e.g. "fix: handle empty input"'),
  }),
  run({ version, commit }) {
    const groups = new Map<string, string[]>()
    for (const subject of commit) {
      const match = /^(\w+)(?:\([^)]*\))?:\s*(.+)$/.exec(subject)
      const kind = match ? ({ feat: 'Features', fix: 'Fixes' } as Record<string, string>)[match[1]!] ?? 'Other' : 'Other'
      groups.set(kind, [...(groups.get(kind) ?? []), match ? match[2]! : subject])
    }
    const sections = [...groups].map(([kind, items]) => `### ${kind}\n\n${items.map((item) => `- ${item}`).join('\n')}`)
    return `## ${version}\n\n${sections.join('\n\n')}\n`
  },
})
