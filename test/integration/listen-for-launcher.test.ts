import { spawn } from 'node:child_process';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LISTEN_PORTS_ENV, packageRoot, receiveListener } from 'fed/testing';
import { freePort } from '../helpers/nats-server.js';

/**
 * The built-in agent listens on its sandbox's ports itself (listenForLauncher, instead of a listener
 * process before it): a real child with the launcher's channel hands each listening socket up through
 * the launcher's own receiver, which serves it; then it closes the channel, so nothing keeps it alive.
 */
const FIXTURE = join(packageRoot(), 'test/fixtures/listen-for-launcher.mjs');

interface Child {
  code: number | null;
  stdout: string;
  stderr: string;
  served: number[];
}

/** The fixture with `setting` as its ports and the channel where the sandbox has it; the listeners served as the launcher serves them. */
async function listenAsAgent(
  setting: string,
  serve: (listener: Server, port: number) => void = () => undefined,
): Promise<Child> {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, [LISTEN_PORTS_ENV]: setting },
    stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ipc'],
  });
  const served: number[] = [];
  receiveListener(child, (listener, port) => {
    served.push(port);
    serve(listener, port);
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, served };
}

/** What a client connecting to 127.0.0.1:`port` is told. */
function greeting(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    connect(port, '127.0.0.1')
      .on('data', (chunk) => (text += chunk.toString()))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}

describe('the built-in agent listening for its launcher (listenForLauncher)', () => {
  it('hands every port up, served by the launcher after it, then closes the channel and ends by itself', async () => {
    const ports = [await freePort(), await freePort()];
    const listeners: Server[] = [];
    const child = await listenAsAgent(ports.join(' '), (listener, port) => {
      listeners.push(listener);
      listener.on('connection', (socket) => socket.end(`served ${port}`));
    });
    try {
      expect(child.code, child.stderr).toBe(0);
      expect(child.served).toEqual(ports);
      // The setting is not passed on to what the agent runs; the channel is closed.
      expect(JSON.parse(child.stdout)).toEqual({ setting: null, connected: false });
      // The sockets it listened on are the launcher's now, served after the agent's own copies closed.
      for (const port of ports) expect(await greeting(port)).toBe(`served ${port}`);
    } finally {
      for (const listener of listeners) listener.close();
    }
  });

  it('a port it cannot listen on: says which and why, and ends (125) with nothing left listening', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const free = await freePort();
    const listeners: Server[] = [];
    try {
      // The free port first: whether or not it was handed up before the other failed, the child ends.
      const child = await listenAsAgent(`${free} ${port}`, (listener) => listeners.push(listener));
      expect(child.code).toBe(125);
      expect(child.stderr).toMatch(new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
      expect(child.served).not.toContain(port);
    } finally {
      taken.close();
      for (const listener of listeners) listener.close();
    }
  });

  it('a setting that is not a list of ports is refused before anything is listened on', async () => {
    const child = await listenAsAgent('3128,3129');
    expect(child.code).toBe(125);
    expect(child.stderr).toBe(`${LISTEN_PORTS_ENV} is not a list of ports separated by spaces: "3128,3129"`);
    expect(child.served).toEqual([]);
  });
});
