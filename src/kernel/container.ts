import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { Token } from '../base/token.js';

/**
 * The only file that touches tsyringe. Everything else sees a `Scope`: register a value, resolve a
 * token, open a child scope (one per plugin, so what a plugin registers stays its own).
 */
export interface Scope {
  registerValue<T>(token: Token<T>, value: T): void;
  registerFactory<T>(token: Token<T>, factory: () => T): void;
  resolve<T>(token: Token<T>): T;
  isRegistered(token: Token<unknown>): boolean;
  child(): Scope;
}

export function createRootScope(): Scope {
  return wrap(rootContainer.createChildContainer());
}

function wrap(container: DependencyContainer): Scope {
  return {
    registerValue: (token, value) => void container.register(token, { useValue: value }),
    registerFactory: (token, factory) => {
      let made: { value: unknown } | undefined;
      container.register(token, { useFactory: () => (made ??= { value: factory() }).value as never });
    },
    resolve: (token) => container.resolve(token),
    isRegistered: (token) => container.isRegistered(token, true),
    child: () => wrap(container.createChildContainer()),
  };
}
