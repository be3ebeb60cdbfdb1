import { describeConformance } from './conformance/suite.js';
import { startFetchOnNode, startNodeHttp } from './conformance/hosts.js';

describeConformance('node:http', startNodeHttp);
describeConformance("fetch under Node's Request/Response", startFetchOnNode);
