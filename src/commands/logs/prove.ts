import { Args, Flags } from '@oclif/core';
import { FactorlyCommand } from '../../cli/base-command.js';
import { readCheckpoints, readVerifiers } from '../../evidence/evidence-files.js';
import { openRecordedLog, projectLogPaths } from '../../cli/project-log.js';
import { FactorlyError } from '../../base/errors.js';
import { paragraphs } from '../../cli/help-text.js';

export default class LogsProve extends FactorlyCommand {
  static summary = "Print inclusion proofs of a call's events in a signed checkpoint of the log.";
  static description = paragraphs`For each event of the call: {seq, leafIndex, treeSize, rootHash, eventHash, proof: [hex…], checkpoint,
event}, one JSON object per line with --json. The proofs lead to the root of --checkpoint (checked
against the log first), else of the newest checkpoint in the log that covers the call, else of a
checkpoint signed now. factorly logs verify --proof FILE --key KEY checks them with nothing else.`;
  static args = {
    call: Args.string({
      description: 'Call id, or a prefix (at least 4 hex chars) of one of its event hashes.',
      required: true,
    }),
  };
  static flags = {
    checkpoint: Flags.string({ description: 'Prove against this checkpoint (it must match the log).' }),
    key: Flags.string({ description: 'Verifier key for --checkpoint (default: the project key).', multiple: true }),
    json: Flags.boolean({ description: 'Print one JSON object per event.' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(LogsProve);
    if (!/^[0-9a-f-]{4,}$/i.test(args.call))
      throw new FactorlyError('USAGE', `"${args.call}" is not a call id or a hash prefix (at least 4 hex chars)`);
    const paths = await projectLogPaths(flags.config);
    const log = await openRecordedLog(flags.config);
    try {
      const { proveCall } = await import('../../evidence/prove-call.js');
      const given = flags.checkpoint ? readCheckpoints([flags.checkpoint])[0] : undefined;
      const proofs = await proveCall(
        log,
        paths.stateDir,
        args.call,
        given,
        readVerifiers(flags.key ?? [], paths.stateDir),
      );
      if (flags.json) for (const proof of proofs) this.writeJson(proof);
      else {
        const [first] = proofs;
        this.log(
          `Call ${first!.callId}: ${proofs.length} events in the tree of ${first!.treeSize} events, root ${first!.rootHash}`,
        );
        for (const proof of proofs)
          this.log(
            `  seq ${proof.seq} ${proof.event?.type}: ${proof.eventHash} (proof of ${proof.proof.length} hashes)`,
          );
      }
    } finally {
      await log.close();
    }
  }
}
