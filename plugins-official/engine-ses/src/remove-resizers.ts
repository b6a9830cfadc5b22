// Removes the buffer resizers (see BUFFER_RESIZERS in sandbox-kit) from the intrinsics every
// compartment shares, while they can still be removed: lockdown hardens them, and the prelude's
// check then finds them gone. Imported for its effect, before 'ses'.
import { removeBufferResizers } from '@factorly/sandbox-kit/child';

removeBufferResizers(globalThis as unknown as Record<string, unknown>);
