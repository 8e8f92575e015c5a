/**
 * The typed error of the broker servers the harness starts (conformance/servers/): a server that is
 * not installed, one that does not answer, a port or folder that cannot be had, a fault this
 * machine cannot make, a call on a server in the wrong state. The message names the server and
 * the value; a start failure carries the tail of the server's own log; a wait that ran out names
 * what did not answer and the time it had (every wait here has one: see deadline.ts).
 */
import { CodedError } from '../../contract/CodedError.ts';

/** Stable codes of ServerError. */
export type ServerErrorCode =
  /** The server's program (or a tool it needs: faketime, initdb, unshare) is not installed. */
  | 'server_missing'
  /** The server did not answer within its time, or exited while starting; the message ends with its log. */
  | 'start_failed'
  /** No free loopback port in the range probed. */
  | 'no_port'
  /** A disk-full fault asked where this machine cannot make one (not root, no unshare, no tmpfs). */
  | 'disk_full_unsupported'
  /** A server, a process of it, a client of it or a tool did not answer (or end) within its time; the message names which and the ms. */
  | 'no_answer'
  /** A call the server's state does not allow (a pause of a stopped server, anything after dispose). */
  | 'bad_state'
  /** A configuration name, or a setting read from the environment, that names none there is. */
  | 'unknown_configuration';

/** An error of a broker server; see the top of the file. */
export class ServerError extends CodedError<ServerErrorCode> {
  override name = 'ServerError' as const;
}
