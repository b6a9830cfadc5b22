import type { Params } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { CallContext } from './call-context.js';
import type { OutputProcessor } from '../contracts/extensions.js';
import type { CallRequest } from '../contracts/gateway.js';
import type { CallSource, ToolDefinition } from '../contracts/tool.js';
import { Redactor } from './redact.js';
import { refusedHydration } from '../config/secret-references.js';
import {
  capParams,
  cappedText,
  shallowParams,
  storedText,
  type CappedInfo,
  type LogBounds,
  type OmittedInfo,
} from '../events/capped-text.js';

/**
 * The events one call writes, as the log keeps them: scrubbed of every secret of its call tree
 * (the tree's values and the connection secrets, known at the time of writing) and bounded in size
 * (`log:` in the config), before they are appended.
 */
export class CallRecord {
  readonly redactor: Redactor;

  constructor(
    private readonly context: CallContext,
    private readonly request: CallRequest,
    private readonly tool: ToolDefinition,
    processors: () => readonly OutputProcessor[],
    readonly bounds: LogBounds,
  ) {
    this.redactor = new Redactor(processors, () => context.scrubList(), tool);
  }

  /**
   * `call.requested`, then `call.params_coerced` when validation changed the params, `call.params_capped`
   * when any was too big, and `call.hydration_refused` when a hydrating param named an unlisted secret.
   */
  async opening(
    extra: {
      sourceSha?: string;
      engine?: { name: string; version: string };
      coerced?: { original: Params; coerced: Params };
    } = {},
  ): Promise<NewEvent[]> {
    const { request, context } = this;
    const { tool, iface, agentId, sessionId, replayedFrom } = request;
    const capped = new Map<string, CappedInfo[string]>();
    const omitted: { info?: OmittedInfo } = {};
    const scrub = (text: string) => this.redactor.text(text);
    // Cut to the log's bounds before the scrubber walks them (what is cut is scrubbed as one text),
    // so the walk costs the bound, not what was sent; a value too deep to walk is recorded as its JSON text.
    const params = await this.cap(shallowParams(request.params, capped), capped, omitted, scrub);
    const data = {
      callId: context.callId,
      rootId: context.rootId,
      parentId: context.parent?.callId,
      tool,
      params,
      iface,
      agentId,
      sessionId,
      replayedFrom,
      sourceSha: extra.sourceSha,
      engine: extra.engine,
    };
    const requested = await this.redactor.event<NewEvent<'call.requested'>>({ type: 'call.requested', data });
    // Again once scrubbed: a marker may be longer than the secret it replaced.
    requested.data.params = await this.cap(requested.data.params, capped, omitted);
    const events: NewEvent[] = [requested];
    if (extra.coerced) {
      const [original, coercedParams] = [
        await this.cap(extra.coerced.original, capped, omitted, scrub),
        await this.cap(extra.coerced.coerced, capped, omitted, scrub),
      ];
      const coerced = await this.redactor.event<NewEvent<'call.params_coerced'>>({
        type: 'call.params_coerced',
        data: { callId: context.callId, original, coerced: coercedParams },
      });
      coerced.data.original = await this.cap(coerced.data.original, capped, omitted);
      coerced.data.coerced = await this.cap(coerced.data.coerced, capped, omitted);
      events.push(coerced);
    }
    if (capped.size > 0 || omitted.info)
      events.push({
        type: 'call.params_capped',
        data: {
          callId: context.callId,
          params: Object.fromEntries(capped),
          ...(omitted.info && { omitted: omitted.info }),
        },
      });
    const refused = refusedHydration(this.tool.parameters, request.params);
    if (Object.keys(refused).length > 0)
      events.push(
        await this.redactor.event({
          type: 'call.hydration_refused',
          data: { callId: context.callId, params: refused },
        }),
      );
    return events;
  }

  /** `source.recorded` for the script a call runs (its id is derived from the digest: appending it again is a no-op). */
  async source(source: CallSource): Promise<NewEvent> {
    return this.redactor.event({
      id: `source-${source.sha}`,
      type: 'source.recorded',
      data: { sha: source.sha, language: source.language, source: source.source },
    });
  }

  /** The text of an error the pipeline itself writes (a refusal), scrubbed. */
  text(text: string): Promise<string> {
    return this.redactor.text(text);
  }

  /** A completion's fields as stored: output capped with its size and digest, error and diagnostics capped with a marker. */
  stored(output: string, error: string | undefined, diagnostics: string | undefined) {
    const cap = this.bounds.maxOutputBytes;
    return {
      output: storedText(output, cap),
      error: cappedText(error, cap),
      diagnostics: cappedText(diagnostics, cap),
    };
  }

  /** The first value capped (or left out) under a name is the one recorded: the params as sent come first. */
  private async cap(
    params: Params,
    capped: Map<string, CappedInfo[string]>,
    omitted: { info?: OmittedInfo },
    scrub?: (text: string) => Promise<string>,
  ): Promise<Params> {
    const result = await capParams(params, this.bounds.maxParamBytes, scrub);
    for (const [name, info] of result.capped) if (!capped.has(name)) capped.set(name, info);
    omitted.info ??= result.omitted;
    return result.params;
  }
}
