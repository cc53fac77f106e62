// The Environment's public surface (browser-safe: the Node factory lives in node_pool.ts).
export { Environment, type EnvironmentOptions } from './environment.ts';
export { SandboxPool, type SandboxPoolOptions } from './pool.ts';
export { TIMEOUT_OBSERVATION } from './exec_result.ts';
export { defaultTools, executeCodeTool, finishTool, ToolRegistry, type CodeExecutor, type StepResult, type Tool, type ToolContext } from './tools.ts';
export type { ExecError, ExecResult, SandboxMetrics, SandboxWorkerFactory, SandboxWorkerHandle } from './types.ts';
