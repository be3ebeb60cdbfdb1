import { afterEach, describe, it } from 'vitest';
import { createInMemoryRegistryStore } from '../src/index.js';
import { describeRegistryStoreContract } from '../src/testing/index.js';

describeRegistryStoreContract('in memory', { create: () => createInMemoryRegistryStore() }, { describe, it, afterEach });
