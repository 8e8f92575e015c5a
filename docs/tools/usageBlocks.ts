/**
 * The `--help` texts quoted in docs/cli.md: every ```text block that begins `Usage: jobcheck <command>`
 * is rewritten with what `jobcheck <command> --help` prints now (run in-process), so that the page
 * cannot drift from the commands. cli/cli.test.ts holds the two equal.
 */
import { runCli } from '../../cli/cli.ts';

/** What `jobcheck <command> --help` prints. */
export async function usageOf(command: string): Promise<string> {
  let stdout = '';
  await runCli([command, '--help'], {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: () => true },
    isTTY: false,
  });
  return stdout;
}

/** The text with every quoted usage block brought up to date. */
export async function refreshUsageBlocks(text: string): Promise<string> {
  const fence = /^```text\n(Usage: jobcheck ([a-z]+)[ \n][\s\S]*?)^```$/gm;
  let out = '';
  let at = 0;
  for (const m of text.matchAll(fence)) {
    const start = (m.index ?? 0) + '```text\n'.length;
    out += text.slice(at, start) + (await usageOf(m[2] ?? ''));
    at = start + (m[1] ?? '').length;
  }
  return out + text.slice(at);
}
