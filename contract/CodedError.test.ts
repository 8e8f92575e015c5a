import { describe, expect, it } from 'vitest';
import { CodedError, codeOf, hasCode, isCodedError, messageOf } from './CodedError.ts';
import { JobcheckError, isJobcheckError } from './errors.ts';

/** A coded error of this test only, as a module outside contract/ would declare one. */
class SampleError extends CodedError<'bad_sample' | 'no_sample'> {
  override name = 'SampleError' as const;
}

describe('CodedError', () => {
  it('keeps the code, the message, the name and the cause a subclass is given', () => {
    const cause = new Error('disk full');
    const error = new SampleError('bad_sample', 'sample "x": not a sample', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toMatchObject({
      name: 'SampleError',
      code: 'bad_sample',
      message: 'sample "x": not a sample',
      cause,
    });
    expect(String(error)).toBe('SampleError: sample "x": not a sample');
  });

  it('leaves the JobcheckError its path, its name and its place in the hierarchy', () => {
    const error = new JobcheckError('invalid_config', 'capacity', 'capacity: must be >= 1 (got 0)');
    expect(error).toBeInstanceOf(JobcheckError);
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toMatchObject({ name: 'JobcheckError', code: 'invalid_config', path: 'capacity' });
    expect('cause' in error).toBe(false);
  });
});

describe('the guards', () => {
  const sample = new SampleError('no_sample', 'no sample "y"');
  const jobcheck = new JobcheckError('invalid_snapshot', 'jobs.a.seq', 'jobs.a.seq: must be >= 1 (got 0)');
  const plain = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });

  it('tell a coded error from a plain Error with a code, and from values that are no error', () => {
    const values = [sample, jobcheck, plain, { code: 'no_sample' }, null, 'no_sample'];
    expect(values.map(isCodedError)).toEqual([true, true, false, false, false, false]);
  });

  it('match a code or a list of codes, of any coded error or of one class only', () => {
    expect(hasCode(sample, 'no_sample')).toBe(true);
    expect(hasCode(sample, ['bad_sample', 'no_sample'], SampleError)).toBe(true);
    expect(hasCode(sample, 'bad_sample', SampleError)).toBe(false);
    expect(hasCode(jobcheck, 'no_sample', SampleError)).toBe(false);
    expect(hasCode(plain, 'ENOENT')).toBe(false);
  });

  it('narrow to the class, so that its own fields can be read', () => {
    const error: unknown = jobcheck;
    if (!hasCode(error, 'invalid_snapshot', JobcheckError)) throw new Error('expected a match');
    expect(error.path).toBe('jobs.a.seq');
  });

  it('tell a JobcheckError, with one of the given codes when any are given', () => {
    expect(isJobcheckError(jobcheck)).toBe(true);
    expect(isJobcheckError(jobcheck, 'invalid_config', 'invalid_snapshot')).toBe(true);
    expect(isJobcheckError(jobcheck, 'storage_unavailable')).toBe(false);
    expect(isJobcheckError(sample)).toBe(false);
  });
});

describe('messageOf and codeOf', () => {
  it("read a thrown value's message and code, whatever was thrown", () => {
    const missing = Object.assign(new Error('no such file'), { code: 'ENOENT' });
    expect(messageOf(missing)).toBe('no such file');
    expect(codeOf(missing)).toBe('ENOENT');
    expect(messageOf({ message: 'from another realm', code: 7 })).toBe('from another realm');
    expect(codeOf({ message: 'from another realm', code: 7 })).toBe(7);
    expect(messageOf('a string')).toBe('a string');
    expect(messageOf({ message: 42 })).toBe('[object Object]');
    expect(messageOf(null)).toBe('null');
    expect(codeOf(new Error('no code'))).toBeUndefined();
    expect(codeOf(null)).toBeUndefined();
    expect(codeOf('ENOENT')).toBeUndefined();
  });
});
