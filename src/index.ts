export { defineAgent, defineRegistry, defineTool } from './define/index.js'
export { HARNESSES } from './define/types.js'
export type {
  AgentDefinition,
  AgentMode,
  AgentOptions,
  AnyToolDefinition,
  ConfigProfile,
  Harness,
  HarnessFields,
  InferInput,
  JsonValue,
  ModelSpec,
  RegistryDefinition,
  RegistryOptions,
  SourceLocation,
  ToolContext,
  ToolDefinition,
  ToolFormat,
  ToolInputSchema,
  ToolOptions,
  ToolOutput,
} from './define/types.js'
