// Push receiver: the agent POSTs every task update to your webhook, signed with its Ed25519 key;
// the receiver checks the signature against the agent's public key before trusting the body.
// Run: pnpm --filter examples example src/push-receiver.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createA2AClient, parsePushNotification } from '@a2aplane/a2a-client';
import { createEd25519WebhookSigner, createWebhookVerifier, generateKeyPair, toVerificationKey } from '@a2aplane/a2a-identity';
import { createAgentCard, createPushSender } from '@a2aplane/a2a-server-express';
import { startShouter } from './serve-agent.js';

export async function pushRoundTrip(): Promise<{ token: string | undefined; states: string[] }> {
  const key = generateKeyPair('EdDSA');
  // A local webhook on 127.0.0.1: allowed explicitly; private and metadata addresses stay refused.
  const webhooks = { allowLoopback: true };
  const agent = await startShouter({
    card: (baseUrl) =>
      createAgentCard({
        baseUrl,
        name: 'Calling-back Shouter',
        description: 'Answers in capitals and calls back.',
        capabilities: { streaming: true, pushNotifications: true },
        skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text.', tags: ['example'] }],
      }),
    server: {
      pushSender: createPushSender({ signer: createEd25519WebhookSigner(key), ssrf: webhooks }),
    },
  });
  // The receiver knows the agent's public key (from its JWKS in a real deployment).
  const verifier = createWebhookVerifier({ ed25519PublicKey: toVerificationKey(key) });
  const states: string[] = [];
  let token: string | undefined;
  let completed!: () => void;
  const done = new Promise<void>((resolve) => {
    completed = resolve;
  });
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const push = await parsePushNotification(req.headers, body, { verifier });
      if (push.ok) {
        token = req.headers['x-a2a-notification-token'] as string | undefined;
        const state = push.event.statusUpdate?.status.state ?? push.event.task?.status.state;
        if (state) states.push(state);
        if (state === 'TASK_STATE_COMPLETED') completed();
      }
      res.writeHead(push.ok ? 204 : 401).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    await createA2AClient({ baseUrl: agent.url }).sendMessage({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'call me back' }] },
      configuration: { taskPushNotificationConfig: { url: hook, token: 'my-token' }, returnImmediately: true },
    });
    await done;
    return { token, states };
  } finally {
    await agent.close();
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await pushRoundTrip());
}
