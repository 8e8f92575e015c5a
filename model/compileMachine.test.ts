import { and, assign, createMachine, not, raise, setup } from 'xstate';
import type { AnyStateMachine } from 'xstate';
import { describe, expect, it } from 'vitest';
import { UnsupportedMachineError, compileMachine } from './compileMachine.ts';
import { jobMachine } from './jobMachine.ts';
import { machineState } from './machineState.ts';
import { runMachine } from './runMachine.ts';
import { storeMachine } from './storeMachine.ts';

const counter = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'INC' } | { type: 'GO' } },
  guards: { small: ({ context }) => context.n < 2, even: ({ context }) => context.n % 2 === 0 },
  actions: {
    inc: assign(({ context }) => ({ n: context.n + 1 })),
    add: assign(({ context }, params: { by: number }) => ({ n: context.n + params.by })),
    again: raise({ type: 'INC' }),
  },
});

/** A one-state machine over `counter` whose `on` is `on`, and whose other state config is `extra`. */
const machineWith = (on: object, extra: object = {}): AnyStateMachine =>
  counter.createMachine({
    context: { n: 0 },
    initial: 'a',
    states: { a: { on, ...extra }, b: { type: 'final' } },
  } as never) as unknown as AnyStateMachine;

describe('compiling a machine for the fast step', () => {
  it('compiles the store and job machines, every state and event in declaration order', () => {
    const job = compileMachine(jobMachine);
    expect([...job.states.keys()]).toEqual(['ready', 'running', 'waiting', 'done', 'dead']);
    expect(
      job.states
        .get('running')
        ?.get('FAIL')
        ?.map((t) => t.target),
    ).toEqual(['dead', 'dead', 'waiting', 'dead']);
    expect(compileMachine(storeMachine).states.get('open')?.get('commit')).toHaveLength(6);
  });

  it('takes the first candidate whose guard holds, runs its assigns in order with params, and moves to its target', () => {
    const m = machineWith({
      INC: [
        { guard: and(['small', not('even')]), actions: [{ type: 'add', params: { by: 10 } }] },
        { guard: 'small', target: 'b', actions: ['inc', { type: 'add', params: { by: 5 } }] },
      ],
    });
    const s0 = machineState(m, 'a', { n: 0 });
    const s1 = runMachine(s0, { type: 'INC' });
    expect(s1).toEqual({ value: 'b', context: { n: 6 }, machine: m });
    expect(runMachine(machineState(m, 'a', { n: 1 }), { type: 'INC' })).toEqual({
      value: 'a',
      context: { n: 11 },
      machine: m,
    });
    // No guard holds, an unknown event, a final state: the same state comes back.
    const big = machineState(m, 'a', { n: 5 });
    expect(runMachine(big, { type: 'INC' })).toBe(big);
    expect(runMachine(s0, { type: 'GO' })).toBe(s0);
    expect(runMachine(s1, { type: 'INC' })).toBe(s1);
  });

  it.each([
    ['a delayed transition', machineWith({}, { after: { 1000: 'b' } })],
    ['an invoked actor', machineWith({}, { invoke: { src: 'x' } })],
    ['an eventless transition', machineWith({}, { always: 'b' })],
    ['an entry action', machineWith({}, { entry: 'inc' })],
    ['an exit action', machineWith({}, { exit: 'inc' })],
    ['a nested state', machineWith({}, { initial: 'x', states: { x: {} } })],
    ['a wildcard event', machineWith({ '*': { actions: 'inc' } })],
    ['a raised event', machineWith({ INC: { actions: 'again' } })],
    ['an unimplemented action', machineWith({ INC: { actions: 'missing' } })],
    ['an unimplemented guard', machineWith({ INC: { guard: 'missing', actions: 'inc' } })],
    ['a side-effect action', machineWith({ INC: { actions: () => {} } })],
    ['a parallel root', createMachine({ type: 'parallel', states: { p: {}, q: {} } }) as unknown as AnyStateMachine],
  ])('refuses %s', (_, machine) => {
    expect(() => compileMachine(machine)).toThrow(UnsupportedMachineError);
  });
});
