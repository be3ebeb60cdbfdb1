export { describeNonceCacheContract, type NonceCacheContractOptions, type NonceCacheFactory } from './nonce-cache-contract.js';
