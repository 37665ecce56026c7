import type { Server } from 'node:net';
import type { NetworkRunRecord } from '../../../core/schema/network-policy.js';
import type { HostPolicy } from './host-policy.js';
import { NetworkLog } from './network-log.js';
import { NetworkProxy } from './network-proxy.js';
import { proxyEnv } from './sandbox-network.js';

/** One sandboxed run's network: its proxy, the environment that points the agent at it, and what it saw. */
export class RunNetwork {
  private readonly log: NetworkLog;
  private readonly proxy: NetworkProxy;

  constructor(policy: HostPolicy) {
    this.log = new NetworkLog(policy.label);
    this.proxy = new NetworkProxy(policy, (connection) => this.log.add(connection));
  }

  /** The sandbox's listener, handed up by it as it starts (agent-process.ts). */
  readonly serve = (listener: Server): void => this.proxy.serve(listener);

  env(): Record<string, string> {
    return proxyEnv();
  }

  /** The agent has exited: what is still open through the proxy is cut. */
  close(): void {
    this.proxy.close();
  }

  record(): NetworkRunRecord {
    return this.log.record();
  }
}
