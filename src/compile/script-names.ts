/*
 * The names of the generated scripts that emitters point at and the bundler writes, in the target's
 * scripts folder (Target.scriptsFolder).
 */

/** The entry that serves every JSON tool over MCP stdio, next to the tool scripts. */
export const MCP_SERVER_ENTRY = 'mcp_tools_server'

/** The entry that connects the harnesses without MCP of their own to the MCP servers someone else wrote, next to the tool scripts. */
export const MCP_BRIDGE_ENTRY = 'mcp_bridge'

/**
 * Its file: CommonJS, so that an extension loads it with Node's own `require` (see
 * emit/codegen/mcp-bridge.ts) and it starts the servers at once, rather than after pi's and Cline's
 * loader (jiti) has compiled it and what it imports.
 */
export const MCP_BRIDGE_FILE = `${MCP_BRIDGE_ENTRY}.cjs`
