// The entry of an exploration worker thread: registers tsx, so that the TypeScript sources run
// as they are in this thread too, then starts worker.ts.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
