/**
 * Installing system packages needs an explicit opt-in (JOBCHECK_INSTALL_PACKAGES=1): without it
 * scripts/installPackages.sh never calls apt-get and says what to install and how to allow it; with
 * it, it runs apt-get with the packages while a policy-rc.d forbids service starts. apt-get and sudo
 * are fakes here that record their arguments; the policy file is a temporary one. scripts/brokers.sh
 * with a broker missing stops (exit 2) without installing, and the scripts that install call
 * apt-get only through the helper (.ci/run opting in).
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'jobcheck-install-packages-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder of fake apt-get and sudo that append their arguments (and whether the policy file is there) to `calls`. */
function fakes(name: string): { bin: string; calls: string; policy: string } {
  const bin = join(work, name, 'bin');
  mkdirSync(bin, { recursive: true });
  const calls = join(work, name, 'calls');
  const policy = join(work, name, 'policy-rc.d');
  writeFileSync(
    join(bin, 'apt-get'),
    `#!/bin/sh\necho "apt-get $* policy=$([ -x '${policy}' ] && cat '${policy}' | tail -n 1)" >> '${calls}'\n`,
    { mode: 0o755 },
  );
  writeFileSync(join(bin, 'sudo'), `#!/bin/sh\necho "sudo $1" >> '${calls}'\nexec "$@"\n`, { mode: 0o755 });
  return { bin, calls, policy };
}

/** Sources the helper and calls install_packages, with the fakes first on the PATH. */
function install(name: string, env: Record<string, string>) {
  const f = fakes(name);
  const r = spawnSync(
    'bash',
    ['-c', `. scripts/installPackages.sh && install_packages demo.sh "no server found" pkg-a pkg-b; echo "status=$?"`],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: {
        ...process.env,
        JOBCHECK_INSTALL_PACKAGES: '',
        ...env,
        PATH: `${f.bin}:${process.env['PATH'] ?? ''}`,
        JOBCHECK_POLICY_RC_D: f.policy,
      },
    },
  );
  return { ...r, calls: existsSync(f.calls) ? readFileSync(f.calls, 'utf8') : '', policyLeft: existsSync(f.policy) };
}

describe('installing system packages', () => {
  it('without JOBCHECK_INSTALL_PACKAGES=1 installs nothing, and says what to install and how to allow it', () => {
    const r = install('refused', {});
    expect(r.calls).toBe('');
    expect(r.stdout).toBe('status=1\n');
    expect(r.stderr).toBe(
      "demo.sh: no server found: install Debian's pkg-a pkg-b (sudo apt-get install pkg-a pkg-b), or run with JOBCHECK_INSTALL_PACKAGES=1 to let demo.sh install it\n",
    );
    expect(install('refused-yes', { JOBCHECK_INSTALL_PACKAGES: 'yes' }).calls).toBe('');
  });

  it('with JOBCHECK_INSTALL_PACKAGES=1 runs apt-get with the packages, service starts forbidden meanwhile, and removes the policy after', () => {
    const r = install('allowed', { JOBCHECK_INSTALL_PACKAGES: '1' });
    expect(r.stdout).toBe('status=0\n');
    const apt = r.calls.split('\n').filter((l) => l.startsWith('apt-get'));
    expect(apt).toEqual(['apt-get update -qq policy=exit 101', 'apt-get install -y -qq pkg-a pkg-b policy=exit 101']);
    expect(r.policyLeft).toBe(false);
    expect(r.stderr).toContain(
      "demo.sh: no server found: installing Debian's pkg-a pkg-b (JOBCHECK_INSTALL_PACKAGES=1)",
    );
  });

  it('scripts/brokers.sh with a broker that is not installed stops with exit 2 naming its package, and installs nothing', () => {
    const f = fakes('brokers');
    // Everything of /usr/bin but redis-server, on a PATH without /usr/bin itself.
    const usrBin = join(work, 'brokers', 'usr-bin');
    mkdirSync(usrBin);
    for (const name of readdirSync('/usr/bin'))
      if (name !== 'redis-server' && name !== 'apt-get' && name !== 'sudo')
        symlinkSync(join('/usr/bin', name), join(usrBin, name));
    const r = spawnSync('bash', ['scripts/brokers.sh', 'redis', '--', 'true'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { HOME: process.env['HOME'] ?? '/', PATH: `${f.bin}:${usrBin}:/usr/sbin`, JOBCHECK_POLICY_RC_D: f.policy },
      timeout: 30_000,
    });
    expect(r.stderr).toContain(
      "brokers.sh: no redis-server found: install Debian's redis-server (sudo apt-get install redis-server), or run with JOBCHECK_INSTALL_PACKAGES=1 to let brokers.sh install it",
    );
    expect(r.status).toBe(2);
    expect(existsSync(f.calls) ? readFileSync(f.calls, 'utf8') : '').toBe('');
  });

  it('is the only way the scripts call apt-get, and .ci/run opts in', () => {
    for (const script of ['scripts/pg.sh', 'scripts/brokers.sh', '.ci/run']) {
      const text = readFileSync(join(ROOT, script), 'utf8');
      expect(text, script).toContain('installPackages.sh');
      expect(text, script).toMatch(/\binstall_packages /);
      const calls = text
        .split('\n')
        .filter((l) => /apt-get (update|install -y)/.test(l) && !l.trimStart().startsWith('#'));
      expect(calls, script).toEqual([]);
    }
    // The default of a shell parameter expansion: 1 unless the caller says otherwise.
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toContain(
      `export JOBCHECK_INSTALL_PACKAGES="${'$'}{JOBCHECK_INSTALL_PACKAGES:-1}"`,
    );
  });
});
