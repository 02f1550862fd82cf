import { MCP_SERVER_ENTRY } from '../compile/script-names.js'
import { type TargetSettings, targetOf } from '../compile/target.js'
import { jsString } from './codegen/escape.js'

/**
 * The bundled MCP server of the server named `serverName`, relative to the target folder. It is
 * CommonJS, loaded with `require`: a process's first ES module import first sets up Node's ES module
 * loader (about 8 ms on a 2-core machine), which the server's start does not need (tool scripts,
 * which are ES modules, load on their first call).
 */
export function mcpServerScript(plan: TargetSettings): string {
  return `${targetOf(plan).scriptsFolder}/${MCP_SERVER_ENTRY}.cjs`
}

/**
 * A one-line CommonJS script, run with `node -e`, that starts the server from any working
 * directory at or below the target folder.
 *
 * Why not plain `node scripts/mcp_tools_server.cjs`: the harnesses start the server in the folder
 * the user is working in, not where the config file is. Claude Code finds `.mcp.json` in a parent
 * folder but starts the server in the subfolder it was launched from (and does not expand its own
 * `CLAUDE_PROJECT_DIR` in `args`); Codex starts a thread's servers in the thread's folder, which
 * may be a subfolder too. A relative script path fails there, and an absolute one would tie the
 * generated tree to one checkout. So the launcher walks up from the working directory to the
 * folder that holds the server script, makes that the working directory (tools then see the same
 * `ctx.cwd` as on the bash route, which runs from the target folder), and loads the server.
 * Checked with the real `claude mcp list` and `codex app-server` from the target folder and from
 * a subfolder (test/harness/claude-codex.test.ts).
 */
export function mcpLauncherSource(plan: TargetSettings): string {
  const script = jsString(mcpServerScript(plan))
  // Where the target says where the server is (a home), it is found there, and tools work in the harness's folder.
  const { scriptLookup } = targetOf(plan)
  if (scriptLookup) return `${scriptLookup(mcpServerScript(plan), 1)} require(script)`
  return [
    `const { existsSync } = require('node:fs'); const { dirname, join } = require('node:path');`,
    `const script = ${script}; let dir = process.cwd();`,
    `while (!existsSync(join(dir, script))) {`,
    `if (dirname(dir) === dir) { console.error(script + ' not found in ' + process.cwd() + ' or any folder above it: run the agent build first.'); process.exit(1) }`,
    `dir = dirname(dir) }`,
    `process.chdir(dir); require(join(dir, script))`,
  ].join(' ')
}

/** `command` and `args` that start the bundled MCP server, for `.mcp.json` and Codex TOML. */
export function mcpServerCommand(plan: TargetSettings): { command: string; args: string[] } {
  return { command: 'node', args: ['-e', mcpLauncherSource(plan)] }
}
