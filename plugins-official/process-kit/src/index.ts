export { runCommand, type CommandOutcome, type CommandRun } from './run-command.js';
export {
  BASE_ENVIRONMENT,
  envPassthroughProblems,
  isFactorlySecretName,
  readEnvPassthrough,
  toolEnvironment,
  userEnvironment,
  type ToolEnvironmentSpec,
} from './environment.js';
