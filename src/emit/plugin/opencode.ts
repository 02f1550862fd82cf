import type { PluginFormatEmitter } from './index.js'

// PLACEHOLDER until the opencode format lands (this session): writes nothing yet.
export const emitOpencodePlugin: PluginFormatEmitter = () => ({ files: [] })
