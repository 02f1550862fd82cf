import type { PluginFormatEmitter } from './index.js'

// PLACEHOLDER until the claude format lands (this session): writes nothing yet.
export const emitClaudePlugin: PluginFormatEmitter = () => ({ files: [] })
