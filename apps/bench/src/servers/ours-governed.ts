// Our server on node:http with the full governance pipeline: budget ledger (caps far above the
// load), recursion policy, task policy (skill allowlist, generous concurrency), lineage spend.
import { benchGovernance } from './bench-governor.js';
import { serveOursOnNodeHttp } from './ours-agent.js';

serveOursOnNodeHttp({ governance: benchGovernance() });
