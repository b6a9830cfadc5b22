/** The message of anything thrown, for a page that shows it. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
