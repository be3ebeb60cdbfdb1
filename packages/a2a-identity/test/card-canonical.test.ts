import { describe, expect, it } from 'vitest';
import { canonicalCardPayload } from '../src/index.js';
import { SPEC_SAMPLE_CARD_JSON } from './fixtures.js';

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/**
 * Expected canonical payload, derived independently with Python:
 * `json.dumps(card_without_signatures, sort_keys=True, separators=(',', ':'), ensure_ascii=False)`,
 * which equals JCS here (ASCII keys, no numbers, nothing default-valued to remove).
 */
const SPEC_SAMPLE_CANONICAL = String.raw`{"capabilities":{"extendedAgentCard":true,"pushNotifications":true,"streaming":true},"defaultInputModes":["application/json","text/plain"],"defaultOutputModes":["application/json","image/png"],"description":"Provides advanced route planning, traffic analysis, and custom map generation services. This agent can calculate optimal routes, estimate travel times considering real-time traffic, and create personalized maps with points of interest.","documentationUrl":"https://docs.examplegeoservices.com/georoute-agent/api","iconUrl":"https://georoute-agent.example.com/icon.png","name":"GeoSpatial Route Planner Agent","provider":{"organization":"Example Geo Services Inc.","url":"https://www.examplegeoservices.com"},"security":[{"google":["openid","profile","email"]}],"securitySchemes":{"google":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://accounts.google.com/.well-known/openid-configuration"}}},"skills":[{"description":"Calculates the optimal driving route between two or more locations, taking into account real-time traffic conditions, road closures, and user preferences (e.g., avoid tolls, prefer highways).","examples":["Plan a route from '1600 Amphitheatre Parkway, Mountain View, CA' to 'San Francisco International Airport' avoiding tolls.","{\"origin\": {\"lat\": 37.422, \"lng\": -122.084}, \"destination\": {\"lat\": 37.7749, \"lng\": -122.4194}, \"preferences\": [\"avoid_ferries\"]}"],"id":"route-optimizer-traffic","inputModes":["application/json","text/plain"],"name":"Traffic-Aware Route Optimizer","outputModes":["application/json","application/vnd.geo+json","text/html"],"tags":["maps","routing","navigation","directions","traffic"]},{"description":"Creates custom map images or interactive map views based on user-defined points of interest, routes, and style preferences. Can overlay data layers.","examples":["Generate a map of my upcoming road trip with all planned stops highlighted.","Show me a map visualizing all coffee shops within a 1-mile radius of my current location."],"id":"custom-map-generator","inputModes":["application/json"],"name":"Personalized Map Generator","outputModes":["image/png","image/jpeg","application/json","text/html"],"tags":["maps","customization","visualization","cartography"]}],"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"https://georoute-agent.example.com/a2a/v1"},{"protocolBinding":"GRPC","protocolVersion":"1.0","url":"https://georoute-agent.example.com/a2a/grpc"},{"protocolBinding":"HTTP+JSON","protocolVersion":"1.0","url":"https://georoute-agent.example.com/a2a/json"}],"version":"1.2.0"}`;

describe('spec §8.4.1 — canonicalization', () => {
  it('§8.4.1 example: removes the empty non-required repeated field, keeps explicit optional false', () => {
    const card = {
      name: 'Example Agent',
      description: '',
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    expect(text(canonicalCardPayload(card))).toBe(
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it('§8.5 sample card: golden canonical payload (signatures excluded, `security` kept)', () => {
    const payload = text(canonicalCardPayload(JSON.parse(SPEC_SAMPLE_CARD_JSON)));
    expect(payload).toBe(SPEC_SAMPLE_CANONICAL);
    expect(payload).not.toContain('signatures');
    expect(payload).toContain('"security":[{"google":["openid","profile","email"]}]');
  });

  it('is independent of member order and whitespace', () => {
    const a = canonicalCardPayload(JSON.parse(SPEC_SAMPLE_CARD_JSON));
    const reordered = Object.fromEntries(Object.entries(JSON.parse(SPEC_SAMPLE_CARD_JSON) as Record<string, unknown>).reverse());
    expect(text(canonicalCardPayload(JSON.parse(JSON.stringify(reordered, null, 4))))).toBe(text(a));
  });

  it('omits implicit-presence defaults at every level', () => {
    const card = {
      name: 'n',
      description: 'd',
      version: '1',
      supportedInterfaces: [{ url: 'https://a', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
      capabilities: { extensions: [{ uri: '', description: '', required: false, params: {} }] },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [
        {
          id: 's',
          name: '',
          description: '',
          tags: [],
          examples: [],
          inputModes: [],
          outputModes: [],
          securityRequirements: [{ schemes: {} }],
        },
      ],
      signatures: [{ protected: 'x', signature: 'y' }],
    };
    expect(text(canonicalCardPayload(card))).toBe(
      '{"capabilities":{"extensions":[{"params":{}}]},"defaultInputModes":[],"defaultOutputModes":[],"description":"d","name":"n",' +
        '"skills":[{"description":"","id":"s","name":"","securityRequirements":[{}],"tags":[]}],' +
        '"supportedInterfaces":[{"protocolBinding":"JSONRPC","protocolVersion":"1.0","url":"https://a"}],"version":"1"}',
    );
  });

  it('keeps optional fields explicitly set to their default, and required fields at their default', () => {
    const card = {
      name: '',
      description: '',
      documentationUrl: '',
      iconUrl: '',
      capabilities: { streaming: false, extendedAgentCard: false },
      skills: [],
    };
    expect(text(canonicalCardPayload(card))).toBe(
      '{"capabilities":{"extendedAgentCard":false,"streaming":false},"description":"","documentationUrl":"","iconUrl":"","name":"","skills":[]}',
    );
  });

  it('treats null on non-required fields as not set (proto JSON) and keeps null on required ones', () => {
    expect(text(canonicalCardPayload({ name: null, provider: null, iconUrl: null, capabilities: { extensions: null } }))).toBe(
      '{"capabilities":{},"name":null}',
    );
  });

  it('never trims inside Struct values or unknown members', () => {
    const card = {
      name: 'n',
      capabilities: { extensions: [{ uri: 'u', params: { empty: '', list: [], flag: false, nested: { x: [] } } }] },
      'x-vendor': { a: '', b: [] },
    };
    expect(text(canonicalCardPayload(card))).toBe(
      '{"capabilities":{"extensions":[{"params":{"empty":"","flag":false,"list":[],"nested":{"x":[]}},"uri":"u"}]},"name":"n","x-vendor":{"a":"","b":[]}}',
    );
  });

  it('drops undefined members like JSON.stringify (typed cards built in code)', () => {
    expect(text(canonicalCardPayload({ name: 'n', iconUrl: undefined, provider: { url: 'u', organization: 'o', extra: undefined } }))).toBe(
      '{"name":"n","provider":{"organization":"o","url":"u"}}',
    );
  });

  it('keeps a __proto__ member as data', () => {
    expect(text(canonicalCardPayload(JSON.parse('{"name":"n","__proto__":{"polluted":true}}')))).toBe(
      '{"__proto__":{"polluted":true},"name":"n"}',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['a string', 'x'],
    ['null', null],
    ['an array', []],
    ['a number', 1],
  ])('throws TypeError on %s', (_n, value) => {
    expect(() => canonicalCardPayload(value)).toThrow(TypeError);
  });
});
