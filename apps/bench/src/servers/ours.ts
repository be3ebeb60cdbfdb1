// Our server on bare node:http (createNodeHttpHandler), default store settings.
import { serveOursOnNodeHttp } from './ours-agent.js';

serveOursOnNodeHttp();
