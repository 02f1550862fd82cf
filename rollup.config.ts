import { builtinModules } from 'node:module'
import { readFileSync } from 'node:fs'
import { defineConfig } from 'rollup'
import esbuild from 'rollup-plugin-esbuild'

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  peerDependencies: Record<string, string>
}
const packages = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.devDependencies), ...Object.keys(pkg.peerDependencies)]
// cross-spawn is the MCP SDK's dependency: the bridge's start takes it from there when it is bundled (src/bundle/vendor.ts).
const external = (id: string) =>
  id.startsWith('node:') || builtinModules.includes(id) || id === 'cross-spawn' || packages.some((p) => id === p || id.startsWith(`${p}/`))

// The runtime files are separate entries: the bundle stage feeds their source to esbuild
// when it builds the tool scripts, so they must exist as files next to the rest of dist/. So is the
// module table the load stage bundles into the registry.
export default defineConfig({
  input: {
    index: 'src/index.ts',
    api: 'src/api.ts',
    cli: 'src/cli.ts',
    vite: 'src/vite.ts',
    rollup: 'src/rollup.ts',
    rolldown: 'src/rolldown.ts',
    esbuild: 'src/esbuild.ts',
    webpack: 'src/webpack.ts',
    rspack: 'src/rspack.ts',
    'load/module-table': 'src/load/module-table.ts',
    'runtime/script': 'src/runtime/script.ts',
    'runtime/start': 'src/runtime/start.ts',
    'runtime/hook-start': 'src/runtime/hook-start.ts',
    'runtime/mcp-server': 'src/runtime/mcp-server.ts',
    'runtime/mcp-bridge': 'src/runtime/mcp-bridge.ts',
    'runtime/mcp-bridge-start': 'src/runtime/mcp-bridge-start.ts',
    'runtime/check-zod': 'src/runtime/check-zod.ts',
    'runtime/check-typebox': 'src/runtime/check-typebox.ts',
    'runtime/check-sinclair-typebox': 'src/runtime/check-sinclair-typebox.ts',
  },
  output: {
    dir: 'dist',
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  },
  external,
  plugins: [esbuild({ target: 'node20', tsconfig: 'tsconfig.json' })],
})
