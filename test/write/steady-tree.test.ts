import { lstat, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { copyProject, repoRoot } from '../util/project.js'

/*
 * A compile with nothing changed writes no file, the manifest included, into a target that holds the
 * user's own settings files (shaped as public repositories' are) and our approval rules. Each compile
 * runs with fresh module state, as a separate `oac compile` does: a process's memory of what it
 * wrote last would skip the very merges that went wrong.
 */

const USER_FILES: Record<string, string> = {
  '.claude/settings.json': `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(npm run test:*)",
      "Read(~/.zshrc)"
    ],
    "deny": [
      "Bash(curl:*)",
      "Read(./.env)"
    ]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "npx prettier --write \\"$CLAUDE_FILE_PATHS\\"" }
        ]
      }
    ]
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "0"
  }
}
`,
  '.gemini/settings.json': `{
  "theme": "GitHub",
  "contextFileName": "AGENTS.md",
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "$GITHUB_TOKEN" }
    }
  }
}
`,
  '.qwen/settings.json': `{
  "tools": {
    "allowed": ["run_shell_command(git status)"]
  }
}
`,
  '.codex/config.toml': `# Codex settings for this repository
model = "gpt-5-codex"
approval_policy = "on-request"

# Docs lookup
[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
`,
  'opencode.json': `{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4-5",
  // the user's own rule
  "permission": {
    "edit": "ask"
  }
}
`,
  '.mcp.json': `{
  "mcpServers": {
    "playwright": { "command": "npx", "args": ["@playwright/mcp@latest"] }
  }
}
`,
  '.vscode/mcp.json': `{
  "servers": {
    "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"] }
  }
}
`,
}

interface Snapshot {
  bytes: Map<string, string>
  /** Each file's inode and modification time: a rewrite of the same bytes changes them. */
  stamps: Map<string, string>
}

async function snapshot(root: string): Promise<Snapshot> {
  const bytes = new Map<string, string>()
  const stamps = new Map<string, string>()
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name)
      if (entry.name === 'node_modules' || entry.name === 'agents') continue
      if (entry.isDirectory()) await walk(path)
      else {
        const stats = await lstat(path)
        const relativePath = path.slice(root.length + 1)
        bytes.set(relativePath, await readFile(path, 'utf8'))
        stamps.set(relativePath, `${stats.ino}:${stats.mtimeMs}`)
      }
    }
  }
  await walk(root)
  return { bytes, stamps }
}

/** One `oac compile` as a fresh process runs it: no module state of an earlier compile. */
async function compileFresh(project: string, mode: 'write' | 'check' = 'write'): Promise<{ code: number; out: string }> {
  vi.resetModules()
  const { main } = await import('../../src/cli.js')
  let out = ''
  const code = await main(['compile', 'agents/registry.ts:registry', '--config', 'prod', '--root', project, '--target', '.', ...(mode === 'check' ? ['--check'] : [])], (t) => (out += t), () => undefined)
  return { code, out }
}

describe('a compile with nothing changed writes nothing', () => {
  let project = ''
  const snapshots: Snapshot[] = []

  beforeAll(async () => {
    project = await copyProject(resolve(repoRoot, 'playground'), 'oac-steady-tree-')
    for (const [path, content] of Object.entries(USER_FILES)) {
      await mkdir(dirname(join(project, path)), { recursive: true })
      await writeFile(join(project, path), content)
    }
    for (let run = 0; run < 3; run++) {
      expect((await compileFresh(project)).code).toBe(0)
      snapshots.push(await snapshot(project))
    }
  }, 240_000)

  afterAll(async () => {
    if (project) await rm(project, { recursive: true, force: true })
  })

  it('the second and third compiles leave every byte of the tree as the first left it', () => {
    const [first, second, third] = snapshots as [Snapshot, Snapshot, Snapshot]
    expect([...first.bytes.keys()].some((path) => path.startsWith('.oac/manifest.'))).toBe(true)
    // Our approval rules went into the user's lists: the case whose record changed order between compiles.
    expect(first.bytes.get('.claude/settings.json')).toContain('"mcp__oac-tools__delete_report"')
    for (const later of [second, third]) {
      expect([...later.bytes.keys()].sort()).toEqual([...first.bytes.keys()].sort())
      for (const [path, content] of first.bytes) expect(later.bytes.get(path), path).toBe(content)
    }
  })

  it('the second and third compiles touch no file (inode and modification time as they were)', () => {
    const [first, second, third] = snapshots as [Snapshot, Snapshot, Snapshot]
    for (const later of [second, third]) for (const [path, stamp] of first.stamps) expect(later.stamps.get(path), path).toBe(stamp)
  })

  it('--check finds the tree up to date', async () => {
    const { code, out } = await compileFresh(project, 'check')
    expect(out).toContain('is up to date')
    expect(code).toBe(0)
  }, 120_000)

  it('--check sees a manifest that a write would rewrite, though every other file is up to date', async () => {
    const path = join(project, '.oac/manifest.oac-tools.json')
    const manifest = JSON.parse(await readFile(path, 'utf8')) as { merges: Record<string, { entries: unknown[]; scaffold?: { containers?: unknown[] } }> }
    // As an earlier build left it: the same records in another order.
    let reordered = 0
    for (const record of Object.values(manifest.merges)) {
      for (const list of [record.entries, record.scaffold?.containers]) {
        if (list && list.length > 1) {
          list.reverse()
          reordered++
        }
      }
    }
    expect(reordered).toBeGreaterThan(0)
    await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`)
    const drift = await compileFresh(project, 'check')
    expect(drift.out).toContain('is out of date')
    expect(drift.out).toContain('~ .oac/manifest.oac-tools.json')
    expect(drift.out.match(/^ {2}~ /gm)).toHaveLength(1)
    expect(drift.code).toBe(1)
    expect((await compileFresh(project)).code).toBe(0)
    expect(await readFile(path, 'utf8')).toBe(snapshots[0]?.bytes.get('.oac/manifest.oac-tools.json'))
    expect((await compileFresh(project, 'check')).code).toBe(0)
  }, 120_000)
})
