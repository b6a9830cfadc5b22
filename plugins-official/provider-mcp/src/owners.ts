import type { Upstream } from './upstream.js';

/**
 * Which upstream server a resource URI or a prompt name belongs to, learnt from the lists the
 * servers answered. Lookups return candidates, most likely first: the owner when known, else every
 * server offering the feature (asked in turn), so a URI the agent got elsewhere still resolves.
 */
export class Owners {
  private readonly uris = new Map<string, Upstream>();
  private readonly templates: { pattern: RegExp; upstream: Upstream }[] = [];
  private readonly prompts = new Map<string, Upstream>();

  learn(method: string, upstream: Upstream, items: Record<string, unknown>[]): void {
    for (const item of items) {
      if (method === 'resources/list' && typeof item.uri === 'string') this.uris.set(item.uri, upstream);
      if (method === 'resources/templates/list' && typeof item.uriTemplate === 'string')
        this.learnTemplate(item.uriTemplate, upstream);
      if (method === 'prompts/list' && typeof item.name === 'string' && !upstream.prefixed)
        this.prompts.set(item.name, upstream);
    }
  }

  ofUri(uri: string, serving: Upstream[]): Upstream[] {
    const owner = this.uris.get(uri) ?? this.templates.find((template) => template.pattern.test(uri))?.upstream;
    return owner && serving.includes(owner) ? [owner, ...serving.filter((upstream) => upstream !== owner)] : serving;
  }

  /** The candidates for a prompt as the agent names it, and the name their server knows it by. */
  ofPrompt(name: string, serving: Upstream[]): [Upstream[], string] {
    const prefixed = serving.find((upstream) => upstream.prefixed && name.startsWith(`${upstream.name}.`));
    if (prefixed) return [[prefixed], name.slice(prefixed.name.length + 1)];
    const plain = serving.filter((upstream) => !upstream.prefixed);
    const owner = this.prompts.get(name);
    return [owner && plain.includes(owner) ? [owner, ...plain.filter((upstream) => upstream !== owner)] : plain, name];
  }

  private learnTemplate(uriTemplate: string, upstream: Upstream): void {
    if (
      this.templates.some(
        (template) => template.upstream === upstream && template.pattern.source === patternOf(uriTemplate).source,
      )
    )
      return;
    this.templates.push({ pattern: patternOf(uriTemplate), upstream });
  }
}

/** An RFC 6570 template as a pattern: each `{…}` expression matches one non-empty run of characters. */
function patternOf(uriTemplate: string): RegExp {
  const parts = uriTemplate.split(/\{[^}]*\}/).map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+?')}$`);
}
