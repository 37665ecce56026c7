import type { Server } from 'node:net';
import type { NetworkRunRecord } from '../../../../core/schema/network-policy.js';
import type { HostPolicy } from '../../prepare/sandbox/host-policy.js';
import { NetworkLog } from './network-log.js';
import { NetworkProxy } from './network-proxy.js';
import type { AgentBroker } from '../agent-broker.js';
import { BROKER_ENV } from '../../../../infra/process/broker-protocol.js';
import { SANDBOX_BROKER_PORT, SANDBOX_PROXY_PORT } from '../../../../core/schema/network-policy.js';
import { LoopbackForward } from './loopback-forward.js';

/** One sandboxed run's network: its proxy, the environment that points the agent at it, and what it saw. */
export class RunNetwork {
  private readonly log: NetworkLog;
  private readonly proxy: NetworkProxy;
  private readonly forward: LoopbackForward;
  private readonly forwarded: ReadonlySet<number>;

  private readonly listeners: Server[] = [];

  /** For a sandbox (its filter written when it was prepared: prepare/sandbox/) whose fed commands go to `broker`. */
  constructor(
    policy: HostPolicy,
    private readonly broker: AgentBroker | undefined,
  ) {
    this.log = new NetworkLog(policy.label);
    this.proxy = new NetworkProxy(policy, (connection) => this.log.add(connection));
    this.forward = new LoopbackForward((connection) => this.log.add(connection));
    this.forwarded = new Set(policy.forwarded);
  }

  /** A listener of the sandbox, handed up by it as it starts (agent-process.ts): the proxy's, the broker's, or a forwarded port's. */
  readonly serve = (listener: Server, port: number): void => {
    this.listeners.push(listener);
    if (port === SANDBOX_PROXY_PORT) this.proxy.serve(listener);
    else if (port === SANDBOX_BROKER_PORT && this.broker) this.broker.serveFrom(listener);
    else if (this.forwarded.has(port)) this.forward.serve(listener, port);
    else listener.close();
  };

  /**
   * The agent's environment: every variable through which a CLI, curl, git or a runtime finds its proxy,
   * and the broker where its fed finds it.
   */
  env(): Record<string, string> {
    const proxy = `http://127.0.0.1:${SANDBOX_PROXY_PORT}`;
    const local = 'localhost,127.0.0.1,::1';
    return {
      HTTPS_PROXY: proxy,
      https_proxy: proxy,
      HTTP_PROXY: proxy,
      http_proxy: proxy,
      ALL_PROXY: proxy,
      all_proxy: proxy,
      NO_PROXY: local,
      no_proxy: local,
      // Not NODE_USE_ENV_PROXY: Node 24 and later would load their proxy support into every node process
      // the agent starts (a project's tests start many), doubling each start; the CLIs read the variables
      // above themselves. A program that needs Node's own fetch to follow them can be given it by the user.
      [BROKER_ENV]: `tcp://127.0.0.1:${SANDBOX_BROKER_PORT}`,
    };
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
