import { FactorlyError } from '../base/errors.js';

/** An extension point a failed plugin load can be rolled back on: `checkpoint()` returns the undo. */
export interface Checkpointed {
  checkpoint(): () => void;
}

/**
 * A keyed extension point: one contribution per key (a provider per tool type, a backend per name).
 * A second contribution for the same key is refused and the error names both contributors.
 */
export class KeyedRegistry<T> implements Checkpointed {
  private readonly entries = new Map<string, { value: T; owner: string }>();

  constructor(private readonly what: string) {}

  add(key: string, value: T, owner: string): void {
    const existing = this.entries.get(key);
    if (existing) {
      throw new FactorlyError(
        'EXTENSION_CONFLICT',
        `${this.what} "${key}" is provided twice: by plugin "${existing.owner}" and by plugin "${owner}"`,
      );
    }
    this.entries.set(key, { value, owner });
  }

  get(key: string): T | undefined {
    return this.entries.get(key)?.value;
  }

  /** Withdraws a contribution (a backend the config no longer lists); only the plugin that added it may. */
  remove(key: string, owner: string): void {
    const existing = this.entries.get(key);
    if (!existing) return;
    if (existing.owner !== owner)
      throw new FactorlyError(
        'EXTENSION_CONFLICT',
        `${this.what} "${key}" belongs to plugin "${existing.owner}", not to plugin "${owner}"`,
      );
    this.entries.delete(key);
  }

  /** Removes, when called, every key added since. */
  checkpoint(): () => void {
    const before = new Set(this.entries.keys());
    return () => {
      for (const key of [...this.entries.keys()]) if (!before.has(key)) this.entries.delete(key);
    };
  }

  keys(): string[] {
    return [...this.entries.keys()].sort();
  }

  values(): T[] {
    return [...this.entries.values()].map((entry) => entry.value);
  }

  /** Which plugin contributed each key. */
  ownersByKey(): Map<string, string> {
    return new Map([...this.entries].map(([key, entry]) => [key, entry.owner]));
  }
}

/** An ordered, many-valued extension point (shadow rules, output processors, confirm channels). */
export class OrderedRegistry<T extends { readonly order?: number }> implements Checkpointed {
  private readonly entries: { value: T; owner: string; index: number }[] = [];

  add(value: T, owner: string): void {
    this.entries.push({ value, owner, index: this.entries.length });
  }

  /** Contributions by ascending `order`, ties kept in registration order. */
  list(): T[] {
    return [...this.entries]
      .sort((a, b) => (a.value.order ?? 0) - (b.value.order ?? 0) || a.index - b.index)
      .map((entry) => entry.value);
  }

  /** Removes, when called, every contribution added since. */
  checkpoint(): () => void {
    const length = this.entries.length;
    return () => void this.entries.splice(length);
  }

  ownerOf(value: T): string | undefined {
    return this.entries.find((entry) => entry.value === value)?.owner;
  }

  /** Every contribution with the plugin that made it, in registration order. */
  contributions(): { value: T; owner: string }[] {
    return this.entries.map(({ value, owner }) => ({ value, owner }));
  }

  /** The plugins that contributed anything here. */
  owners(): Set<string> {
    return new Set(this.entries.map((entry) => entry.owner));
  }
}
