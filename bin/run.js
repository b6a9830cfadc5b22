#!/usr/bin/env node
import { execute, settings } from '@oclif/core';

// Linked plugins ship compiled JavaScript; there is nothing to transpile.
settings.enableAutoTranspile = false;
await execute({ dir: import.meta.url });
