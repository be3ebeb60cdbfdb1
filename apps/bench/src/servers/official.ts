// The official @a2a-js/sdk server: DefaultRequestHandler + InMemoryTaskStore + the express
// jsonRpcHandler, with the executor of official-agent.ts.
import { createServer } from 'node:http';
import { UserBuilder, agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import express from 'express';
import { parseServerArgs, serve } from './common.js';
import { countOfficialStored, InMemoryTaskStore, officialHandler } from './official-agent.js';

const args = parseServerArgs();
const store = new InMemoryTaskStore();
const app = express();

function mount(baseUrl: string): void {
  const requestHandler = officialHandler(`${baseUrl}/a2a/jsonrpc`, 'JSONRPC', args.mode, args.events, store);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: requestHandler }));
}

serve(createServer(app), args, () => countOfficialStored(store), mount);
