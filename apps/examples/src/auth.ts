// Auth: the card declares an API-key scheme, the server checks keys in constant time, the client
// sends its key; a call without it is refused with 401 (UnauthenticatedError).
// Run: pnpm --filter examples example src/auth.ts
import { pathToFileURL } from 'node:url';
import { apiKeyAuth, createA2AClient } from '@a2aplane/a2a-client';
import { createAgentCard, createAuthenticator, createStaticApiKeyVerifier } from '@a2aplane/a2a-server-express';
import { startShouter } from './serve-agent.js';

const securitySchemes = { apiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-API-Key' } } };

export async function authRoundTrip(): Promise<{ withKey: string | undefined; withoutKey: string }> {
  const secret = process.env.EXAMPLE_API_KEY ?? crypto.randomUUID();
  const agent = await startShouter({
    card: (baseUrl) =>
      createAgentCard({
        baseUrl,
        name: 'Private Shouter',
        description: 'Answers in capitals, to callers with a key.',
        skills: [{ id: 'shout', name: 'Shout', description: 'Upper-cases text.', tags: ['example'] }],
        securitySchemes,
        securityRequirements: [{ schemes: { apiKey: { list: [] } } }],
      }),
    server: {
      authenticate: createAuthenticator({
        securitySchemes,
        apiKey: createStaticApiKeyVerifier({ [secret]: { id: 'partner', scheme: 'apiKey' } }),
      }),
    },
  });
  const message = { messageId: crypto.randomUUID(), role: 'ROLE_USER' as const, parts: [{ text: 'let me in' }] };
  try {
    const client = createA2AClient({ baseUrl: agent.url, auth: apiKeyAuth({ name: 'X-API-Key', value: secret, location: 'header' }) });
    const { task } = await client.sendMessage({ message });
    let withoutKey = 'accepted';
    try {
      await createA2AClient({ baseUrl: agent.url }).sendMessage({ message: { ...message, messageId: crypto.randomUUID() } });
    } catch (error) {
      withoutKey = (error as { reason?: string }).reason ?? String(error);
    }
    return { withKey: task?.status.state, withoutKey };
  } finally {
    await agent.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(await authRoundTrip());
}
