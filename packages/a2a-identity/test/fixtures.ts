/** The sample card of spec §8.5, verbatim (its `security` key is not in the v1 proto; JCS keeps it as received). */
export const SPEC_SAMPLE_CARD_JSON = String.raw`{
  "name": "GeoSpatial Route Planner Agent",
  "description": "Provides advanced route planning, traffic analysis, and custom map generation services. This agent can calculate optimal routes, estimate travel times considering real-time traffic, and create personalized maps with points of interest.",
  "supportedInterfaces": [
    {"url": "https://georoute-agent.example.com/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": "https://georoute-agent.example.com/a2a/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
    {"url": "https://georoute-agent.example.com/a2a/json", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
  ],
  "provider": {
    "organization": "Example Geo Services Inc.",
    "url": "https://www.examplegeoservices.com"
  },
  "iconUrl": "https://georoute-agent.example.com/icon.png",
  "version": "1.2.0",
  "documentationUrl": "https://docs.examplegeoservices.com/georoute-agent/api",
  "capabilities": {
    "streaming": true,
    "pushNotifications": true,
    "extendedAgentCard": true
  },
  "securitySchemes": {
    "google": {
      "openIdConnectSecurityScheme": {
        "openIdConnectUrl": "https://accounts.google.com/.well-known/openid-configuration"
      }
    }
  },
  "security": [{ "google": ["openid", "profile", "email"] }],
  "defaultInputModes": ["application/json", "text/plain"],
  "defaultOutputModes": ["application/json", "image/png"],
  "skills": [
    {
      "id": "route-optimizer-traffic",
      "name": "Traffic-Aware Route Optimizer",
      "description": "Calculates the optimal driving route between two or more locations, taking into account real-time traffic conditions, road closures, and user preferences (e.g., avoid tolls, prefer highways).",
      "tags": ["maps", "routing", "navigation", "directions", "traffic"],
      "examples": [
        "Plan a route from '1600 Amphitheatre Parkway, Mountain View, CA' to 'San Francisco International Airport' avoiding tolls.",
        "{\"origin\": {\"lat\": 37.422, \"lng\": -122.084}, \"destination\": {\"lat\": 37.7749, \"lng\": -122.4194}, \"preferences\": [\"avoid_ferries\"]}"
      ],
      "inputModes": ["application/json", "text/plain"],
      "outputModes": [
        "application/json",
        "application/vnd.geo+json",
        "text/html"
      ]
    },
    {
      "id": "custom-map-generator",
      "name": "Personalized Map Generator",
      "description": "Creates custom map images or interactive map views based on user-defined points of interest, routes, and style preferences. Can overlay data layers.",
      "tags": ["maps", "customization", "visualization", "cartography"],
      "examples": [
        "Generate a map of my upcoming road trip with all planned stops highlighted.",
        "Show me a map visualizing all coffee shops within a 1-mile radius of my current location."
      ],
      "inputModes": ["application/json"],
      "outputModes": [
        "image/png",
        "image/jpeg",
        "application/json",
        "text/html"
      ]
    }
  ],
  "signatures": [
    {
      "protected": "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpPU0UiLCJraWQiOiJrZXktMSIsImprdSI6Imh0dHBzOi8vZXhhbXBsZS5jb20vYWdlbnQvandrcy5qc29uIn0",
      "signature": "QFdkNLNszlGj3z3u0YQGt_T9LixY3qtdQpZmsTdDHDe3fXV9y9-B3m2-XgCpzuhiLt8E0tV6HXoZKHv4GtHgKQ"
    }
  ]
}`;

/** A card that sets every field of the v1.0 AgentCard (and a vendor member), for table-driven tamper tests. */
export function fullCard(): Record<string, unknown> {
  return {
    name: 'Full Agent',
    description: 'Sets every field',
    supportedInterfaces: [
      { url: 'https://full.example.com/a2a/v1', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: 'acme' },
      { url: 'https://full.example.com/a2a/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ],
    provider: { url: 'https://example.com', organization: 'Example Inc.' },
    version: '2.1.0',
    documentationUrl: 'https://docs.example.com',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      extensions: [
        {
          uri: 'urn:a2aplane:extension:ruvector:v1',
          description: 'control plane',
          required: false,
          params: {
            agent_id: '7cb16e94954c73e793776b730c4fa20fe747987ce43b49c66deb6b4aa49be50d',
            webhook_algos: ['hmac-sha256', 'ed25519'],
            depth: 3,
          },
        },
      ],
    },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { scheme: 'Bearer', bearerFormat: 'JWT' } },
    },
    securityRequirements: [{ schemes: { bearer: { list: ['read'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['application/json'],
    skills: [
      {
        id: 'echo',
        name: 'Echo',
        description: 'Repeats input',
        tags: ['test', 'echo'],
        examples: ['say hi'],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [{ schemes: { bearer: { list: ['echo'] } } }],
      },
    ],
    iconUrl: 'https://full.example.com/icon.png',
    'x-vendor': { note: 'kept verbatim', count: 1.5, on: true, nothing: null },
  };
}

/** RFC 8032 §7.1 TEST 1 seed: its AgentID is the one `fullCard()` declares. */
export const RFC8032_TEST1_SEED = Uint8Array.from(
  '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60'.match(/../g)!.map((h) => Number.parseInt(h, 16)),
);
