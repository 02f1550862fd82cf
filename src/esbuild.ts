import { unpluginOac } from './plugin/index.js'

export type { OacPluginOptions } from './plugin/index.js'
export default unpluginOac.esbuild
