import { connect } from 'node:net';
import { encodeFrame, FRAME, FrameReader, brokerAddress, type BrokerEventRequest } from './broker-protocol.js';

/** How an event sent to the launcher ended: what `fed event` would have printed, and its exit code. */
export interface BrokerEventAnswer {
  stdout: string;
  stderr: string;
  /** Undefined when the broker went away before answering. */
  code: number | undefined;
}

/**
 * One lifecycle event sent to the launcher's broker at `socketPath` (an EVENT request of broker-protocol.ts),
 * which applies it as `fed event` would and answers as it would: how a launched agent program reports
 * without starting a process (the built-in agent does).
 * `onSent` is called once the request is handed to the socket: from then on the launcher has it, whatever
 * the agent does. The socket cannot be reached: rejects with the connection's error.
 */
export function sendBrokerEvent(
  socketPath: string,
  request: BrokerEventRequest,
  onSent?: () => void,
): Promise<BrokerEventAnswer> {
  return new Promise((resolve, reject) => {
    const target = brokerAddress(socketPath);
    const socket = connect(target.options);
    const reader = new FrameReader();
    const answer: BrokerEventAnswer = { stdout: '', stderr: '', code: undefined };
    let connected = false;
    socket.on('connect', () => {
      connected = true;
      target.release();
      socket.write(encodeFrame(FRAME.EVENT, JSON.stringify(request)), (error) => {
        // Not written (the broker went away): no answer comes, and the close says so.
        if (!error) onSent?.();
      });
    });
    socket.on('data', (chunk: Buffer) => {
      let frames;
      try {
        frames = reader.push(chunk);
      } catch (error) {
        return void socket.destroy(error as Error);
      }
      for (const { type, payload } of frames) {
        if (type === FRAME.STDOUT) answer.stdout += payload.toString('utf8');
        else if (type === FRAME.STDERR) answer.stderr += payload.toString('utf8');
        else if (type === FRAME.EXIT) answer.code = (JSON.parse(payload.toString('utf8')) as { code: number }).code;
      }
    });
    socket.on('error', (error) => {
      target.release();
      if (!connected) reject(error);
    });
    socket.on('close', () => resolve(answer));
  });
}
