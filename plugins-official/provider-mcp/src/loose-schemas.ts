import { z } from 'zod';

/**
 * Schemas that check only the envelope and keep every field: what factorly forwards between an
 * agent and an upstream server goes through as it came, whatever the SDK's own schemas would strip.
 */
export const LooseResult = z.looseObject({});

export function serverRequestSchema(method: string) {
  return z.looseObject({ method: z.literal(method), params: z.looseObject({}).optional() });
}

export function serverNotificationSchema(method: string) {
  return z.looseObject({ method: z.literal(method), params: z.looseObject({}).optional() });
}
