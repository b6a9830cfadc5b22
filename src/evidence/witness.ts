import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userEnvironment } from '@factorly/process-kit';
import { messageOf } from '../base/errors.js';
import { checkpointFileName, type SignedCheckpoint } from './checkpoint-sign.js';

/** Where each new checkpoint also goes: the user's anchors outside the project's log. */
export interface Witnesses {
  /** A directory that gets a copy (`--witness DIR`, `log.witness_dir`). */
  dirs: string[];
  /** A command that reads the checkpoint on stdin (`log.witness`): a shell line or argv. */
  command?: string | string[];
}

const COMMAND_TIMEOUT_MS = 30_000;

/**
 * Hands a checkpoint to every witness. A witness that fails does not undo the checkpoint (it is in
 * the log and in `.factorly/checkpoints/` already): its failure is returned, for a warning.
 */
export async function deliverCheckpoint(signed: SignedCheckpoint, witnesses: Witnesses): Promise<string[]> {
  const failures: string[] = [];
  for (const dir of witnesses.dirs) {
    try {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, checkpointFileName(signed.size)), signed.checkpoint);
    } catch (error) {
      failures.push(`witness dir ${dir}: ${messageOf(error)}`);
    }
  }
  if (witnesses.command) {
    const failure = await runWitness(witnesses.command, signed);
    if (failure) failures.push(failure);
  }
  return failures;
}

function runWitness(command: string | string[], signed: SignedCheckpoint): Promise<string | undefined> {
  const [file, args, shell] =
    typeof command === 'string' ? [command, [], true] : [command[0]!, command.slice(1), false];
  // The person's environment minus factorly's secret variables, plus what a witness is documented to get.
  const env = userEnvironment({
    FACTORLY_CHECKPOINT_SIZE: String(signed.size),
    FACTORLY_CHECKPOINT_ORIGIN: signed.origin,
    FACTORLY_CHECKPOINT_FILE: signed.file,
  });
  const shown = typeof command === 'string' ? command : command.join(' ');
  return new Promise((resolve) => {
    const child = spawn(file, args, { shell, env, stdio: ['pipe', 'ignore', 'pipe'], timeout: COMMAND_TIMEOUT_MS });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.on('error', (error) => resolve(`witness command ${shown}: ${error.message}`));
    child.on('close', (code, signal) => {
      if (code === 0) resolve(undefined);
      else
        resolve(
          `witness command ${shown} ${signal ? `was stopped (${signal})` : `exited ${code}`}${stderr.trim() ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`,
        );
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(signed.checkpoint);
  });
}
