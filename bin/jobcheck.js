#!/usr/bin/env node
// The `jobcheck` command: registers tsx so that the TypeScript sources run as they are, then
// starts cli/main.ts.
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
