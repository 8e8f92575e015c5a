/**
 * The reference model behind the adapter interface. Useful as the reference adapter (the engine
 * run against it must always agree), for developing the engine without an implementation, and as
 * a template for writing adapters.
 */
import type { Config, Reply, Snapshot } from '../../contract/index.ts';
import { fromSnapshot, initialState, step, toSnapshot } from '../../model/index.ts';
import type { ModelState } from '../../model/index.ts';
import type { StoreMaker } from '../../impl/protocol/index.ts';
import type { Adapter, AdapterFactory, RestoreAnswer } from '../adapter.ts';
import { offerTo } from './offerRestore.ts';

/** An adapter over the model's pure step function; the state lives in the adapter. */
export class ModelAdapter implements Adapter {
  readonly name = 'model';
  private state: ModelState;

  constructor(config: Config) {
    this.state = initialState(config);
  }

  /** Executes one command with the model's step function. */
  execute(command: unknown): Promise<Reply> {
    const result = step(this.state, command);
    this.state = result.state;
    return Promise.resolve(result.reply);
  }

  /** The model's canonical snapshot. */
  snapshot(): Promise<Snapshot> {
    return Promise.resolve(toSnapshot(this.state));
  }

  /** Snapshot -> JSON text -> parse -> restore. */
  restart(): Promise<void> {
    this.state = fromSnapshot(JSON.parse(JSON.stringify(toSnapshot(this.state))));
    return Promise.resolve();
  }

  /** The model's restore of the value of `text`: the judge of the restore phase, so it agrees with itself. */
  offerRestore(text: string): Promise<RestoreAnswer> {
    return offerTo(text, (value) => {
      this.state = fromSnapshot(value);
    });
  }

  /** Nothing to release. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Creates model-backed adapters. */
export const modelFactory: AdapterFactory = (config) => Promise.resolve(new ModelAdapter(config));

/**
 * The reference model as a protocol server's store (`jobcheck serve --store model`): the model
 * itself answering over the protocol, so that documented exchanges and tools can be run against it.
 */
export const modelStoreMaker: StoreMaker = {
  name: 'jobcheck-model',
  create: (config) => modelStore(initialState(config)),
  restore: (snapshot) => modelStore(fromSnapshot(snapshot)),
};

function modelStore(start: ModelState): { execute(command: unknown): Reply; snapshot(): Snapshot } {
  let state = start;
  return {
    execute(command) {
      const result = step(state, command);
      state = result.state;
      return result.reply;
    },
    snapshot: () => toSnapshot(state),
  };
}
