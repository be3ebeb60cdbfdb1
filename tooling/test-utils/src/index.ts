// Test helpers shared by the packages' tests (a private workspace package: only ever a
// devDependency, never shipped). Runs from source: its consumers' vitest and tsc resolve the
// `@a2aplane/source` condition.
export { closeServer, freePort, listenOnLoopback } from './loopback.js';
export { type RunningChildAgent, startOfficialAgent } from './official-agent.js';
export { type PrometheusMetricFamily, type PrometheusSample, parsePrometheusText } from './prometheus.js';
export { type CardCase, cardCase, JWKS_PATH } from './signed-cards.js';
export { POSTGRES_URL, REDIS_URL, testKeyPrefix, testSchema } from './services.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export {
  createGate,
  forkFixture,
  type HoldingReceiver,
  killHard,
  readAll,
  sendMessage,
  sleep,
  startHoldingReceiver,
  userMessage,
  waitFor,
} from './replicas.js';
export {
  countingExecutor,
  type PushOutboxKillOptions,
  pushOutboxKillScenario,
  type ReplicaKillOptions,
  refusedSendsScenario,
  replicaKillScenario,
  sendPushBurst,
} from './store-scenarios.js';
