/**
 * Warnings a library raises in the harness's own process (a client's deprecation, an experimental
 * API), told in a line jobcheck writes: Node's own printer is removed, so `(node:123)
 * DeprecationWarning: …` and its second line never start a line of jobcheck's output. Each kind
 * (name and code) is told once per process, its message as one line of outside text.
 */
import { outsideText } from '../conformance/outside/outsideText.ts';

/** The one line that tells `warning`: its name, its code when it has one, and its message's first line. Pure. */
export function warningLine(warning: Error & { readonly code?: unknown }): string {
  const code = typeof warning.code === 'string' ? ` ${outsideText(warning.code)}` : '';
  const message = outsideText((warning.message.split('\n')[0] ?? '').slice(0, 300));
  return `jobcheck: a library in this process warned (${outsideText(warning.name)}${code}): ${message}\n`;
}

/** Replaces Node's printer of process warnings with warningLine on `write` (default: stderr), each kind once. */
export function tellLibraryWarnings(write: (line: string) => void = (line) => process.stderr.write(line)): void {
  const told = new Set<string>();
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { readonly code?: unknown }) => {
    const kind = `${warning.name}\u0000${String(warning.code)}`;
    if (told.has(kind)) return;
    told.add(kind);
    write(warningLine(warning));
  });
}
