import type { PluginFormatEmitter } from './index.js'

// PLACEHOLDER until the pi format lands (this session): writes nothing yet.
export const emitPiPackage: PluginFormatEmitter = () => ({ files: [] })
