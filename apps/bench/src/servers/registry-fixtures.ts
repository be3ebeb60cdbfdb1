import type { AgentRecord } from '@a2aplane/a2a-registry';

/** 50 skill ids and 20 tags: a skill search matches about 4 % of the agents, a tag one about 10 %. */
export const SKILLS = Array.from({ length: 50 }, (_, index) => `skill-${index}`);
export const TAGS = Array.from({ length: 20 }, (_, index) => `tag-${index}`);
const WORDS = ['forecast', 'translate', 'summarize', 'invoice', 'schedule', 'search', 'classify', 'extract', 'review', 'plan'];

/** The card of agent `index`: two skills, two tags each, a description of three words. */
export function agentCardFor(index: number, origin: string): AgentRecord['card'] {
  const skill = (n: number) => ({
    id: SKILLS[n % SKILLS.length] as string,
    name: `Skill ${n % SKILLS.length}`,
    description: `${WORDS[n % WORDS.length]} things`,
    tags: [TAGS[n % TAGS.length] as string, TAGS[(n * 3 + 1) % TAGS.length] as string],
  });
  return {
    name: `agent ${index}`,
    description: `${WORDS[index % WORDS.length]} ${WORDS[(index * 7) % WORDS.length]} ${WORDS[(index * 3) % WORDS.length]} agent`,
    version: '1.0.0',
    supportedInterfaces: [{ url: `${origin}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: {},
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [skill(index), skill(index * 7 + 3)],
  } as AgentRecord['card'];
}
