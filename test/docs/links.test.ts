import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { repoRoot } from '../util/project.js'

/*
 * Every relative link of the README and docs/ leads somewhere: the file exists, and an anchor names
 * one of its headings as GitHub (and npm) make them: lowercase, punctuation but `-` and `_` dropped,
 * each space a `-`, a repeated heading suffixed `-1`, `-2`, ...
 */

const pages = ['README.md', ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]

/** The anchors of a markdown file's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const found = new Set<string>()
  let inCode = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode
    const heading = !inCode && /^#{1,6} (.+)$/.exec(line)
    if (!heading) continue
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    found.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return found
}

/** The relative links of a markdown file, outside code blocks and inline code. */
function links(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]!).filter((target) => !/^[a-z]+:/.test(target))
}

describe.each(pages)('%s', (page) => {
  it('links only to files and headings that exist', () => {
    const text = readFileSync(join(repoRoot, page), 'utf8')
    const broken: string[] = []
    for (const target of links(text)) {
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const file = path === '' ? join(repoRoot, page) : join(repoRoot, dirname(page), path)
      if (!existsSync(file)) {
        broken.push(`${target}: no file ${relative(repoRoot, file)}`)
      } else if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(`${target}: no heading #${anchor} in ${relative(repoRoot, file)}`)
      }
    }
    expect(broken).toEqual([])
  })
})

it('finds the headings GitHub makes anchors of', () => {
  expect([...anchors('# A `b` c\n```\n# not\n```\n## Results and approvals, in each harness\n## A `b` c\n')]).toEqual(['a-b-c', 'results-and-approvals-in-each-harness', 'a-b-c-1'])
  expect(links('[a](docs/x.md#y) `[b](no.md)` [c](https://example.com)')).toEqual(['docs/x.md#y'])
})
