import type { Server } from 'node:net';
import type { NetworkRunRecord } from '../../../../core/schema/network-policy.js';
import type { HostPolicy } from '../../prepare/sandbox/host-policy.js';
import { NetworkLog } from './network-log.js';
import { NetworkProxy } from './network-proxy.js';
import type { AgentBroker } from '../agent-broker.js';
import { proxyEnv, writeFilter } from '../../prepare/sandbox/sandbox-network.js';
import { SANDBOX_BROKER_PORT, SANDBOX_PROXY_PORT } from '../../../../core/schema/network-policy.js';
import { LoopbackForward } from './loopback-forward.js';

/** One sandboxed run's network: its proxy, the environment that points the agent at it, and what it saw. */
export class RunNetwork {
  private readonly log: NetworkLog;
  private readonly proxy: NetworkProxy;
  private readonly forward: LoopbackForward;
  private readonly forwarded: ReadonlySet<number>;

  private readonly listeners: Server[] = [];

  /** For the sandbox of the team in `workspace`, whose fed commands go to `broker`; its filter is written now. */
  constructor(
    policy: HostPolicy,
    workspace: string,
    private readonly broker: AgentBroker | undefined,
  ) {
    this.log = new NetworkLog(policy.label);
    this.proxy = new NetworkProxy(policy, (connection) => this.log.add(connection));
    this.forward = new LoopbackForward((connection) => this.log.add(connection));
    this.forwarded = new Set(policy.forwarded);
    writeFilter(workspace);
  }

  /** A listener of the sandbox, handed up by it as it starts (agent-process.ts): the proxy's, the broker's, or a forwarded port's. */
  readonly serve = (listener: Server, port: number): void => {
    this.listeners.push(listener);
    if (port === SANDBOX_PROXY_PORT) this.proxy.serve(listener);
    else if (port === SANDBOX_BROKER_PORT && this.broker) this.broker.serveFrom(listener);
    else if (this.forwarded.has(port)) this.forward.serve(listener, port);
    else listener.close();
  };

  env(): Record<string, string> {
    return proxyEnv();
  }

  /** The agent has exited: what is still open through the proxy is cut. */
  close(): void {
    this.proxy.close();
    this.forward.close();
    for (const listener of this.listeners) listener.close();
  }

  record(): NetworkRunRecord {
    return this.log.record();
  }
}
