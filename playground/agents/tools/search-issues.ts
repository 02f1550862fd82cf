import { defineTool } from 'unplugin-oac'
import { z } from 'zod'
import issues from '../../data/issues.json' with { type: 'json' }

export const searchIssues = defineTool({
  name: 'search_issues',
  description: "Search the project's issue tracker by text, labels, state and author.",
  input: z.object({
    query: z.string().describe('Words that must all appear in the title (case-insensitive)'),
    filter: z
      .object({
        labels: z.array(z.string()).default([]).describe('Issues must carry every one of these labels'),
        state: z.enum(['open', 'closed', 'all']).default('open'),
        author: z.string().optional(),
      })
      .default({ labels: [], state: 'open' })
      .describe('Narrow the search'),
    limit: z.number().int().positive().max(50).default(10),
  }),
  effects: { readOnly: true },
  run({ query, filter, limit }) {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean)
    const found = issues.filter(
      (issue) =>
        words.every((word) => issue.title.toLowerCase().includes(word)) &&
        filter.labels.every((label) => issue.labels.includes(label)) &&
        (filter.state === 'all' || issue.state === filter.state) &&
        (filter.author === undefined || issue.author === filter.author),
    )
    return found.slice(0, limit)
  },
})
