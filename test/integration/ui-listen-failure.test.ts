import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, expect, it, onTestFinished } from 'vitest';
import { initFederation } from 'fed';
import { serveLeases } from 'fed/testing';
import { fedInProcess } from '../helpers/fed-in-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A port of 127.0.0.1 another server holds for the test. */
async function occupiedPort(): Promise<number> {
  const server: Server = createServer((_request, response) => response.end('not fed\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

function federation(): string {
  const root = tempDir();
  initFederation(root, {}, {});
  return root;
}

/** An address of the documentation ranges (RFC 5737) that no interface of this machine has. */
function addressNotHere(): string {
  const here = new Set(
    Object.values(networkInterfaces())
      .flat()
      .map((address) => address?.address),
  );
  return ['192.0.2.1', '198.51.100.1', '203.0.113.1'].find((address) => !here.has(address))!;
}

const NO_STACK = /\n\s+at /;
// A name the resolver does not know; a machine whose resolver cannot be reached says EAI_AGAIN instead.
const NO_SUCH_HOST =
  /fed: --host "not a host": (no such address \(ENOTFOUND\); give an IP address or a name of this machine, such as 127\.0\.0\.1|the name could not be looked up now \(EAI_AGAIN\))/;

/** `fed ui` and `fed serve --ui` on an address the dashboard cannot listen on: bad input (exit 2), said plainly. */
describe('the dashboard on an address it cannot listen on', () => {
  it('fed ui --port <a port in use>: exit 2, the port named and what to pass instead, no stack', async () => {
    const root = federation();
    const port = await occupiedPort();
    const result = await fedInProcess(['ui', '--port', String(port)], root);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `fed: --port ${port}: the port is in use (EADDRINUSE); pass another --port, or 0 for a free one\n`,
    );
    // The port's own server still answers.
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('not fed\n');
  });

  it('fed ui --host "not a host": exit 2, no such address, no stack', async () => {
    const result = await fedInProcess(['ui', '--host', 'not a host'], federation());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(NO_SUCH_HOST);
    expect(result.stderr).not.toMatch(NO_STACK);
  });

  it('fed ui --host <an address of no interface here>: exit 2, naming the addresses to give', async () => {
    const elsewhere = addressNotHere();
    const result = await fedInProcess(['ui', '--host', elsewhere], federation());
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.replace(elsewhere, '<elsewhere>')).toMatch(
      /^fed: --host <elsewhere>: not an address of this machine \(EADDRNOTAVAIL\); give one of its addresses \(127\.0\.0\.1[^)]*\), or leave --host out for 127\.0\.0\.1\n$/,
    );
  });

  it('fed serve --ui refuses the address before it starts: nothing announced, no lease left (exit 2)', async () => {
    const root = federation();
    const port = await occupiedPort();
    const started = Date.now();
    const busy = await fedInProcess(['serve', '--ui', '--port', String(port)], root);
    expect(busy.code, busy.stderr).toBe(2);
    expect(busy.stdout).toBe('');
    expect(busy.stderr).toBe(
      `fed: --port ${port}: the port is in use (EADDRINUSE); pass another --port, or 0 for a free one\n`,
    );
    const nowhere = await fedInProcess(['serve', '--ui', '--host', 'not a host'], root);
    expect(nowhere.code, nowhere.stderr).toBe(2);
    expect(nowhere.stdout).toBe('');
    expect(nowhere.stderr).toMatch(NO_SUCH_HOST);
    expect(nowhere.stderr).not.toMatch(NO_STACK);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(serveLeases(root)).toEqual([]);
  });
});
