import { createMemoryInstanceBus } from '../../src/shared/instance-bus.js';
import { describeInstanceBus } from './instance-bus-suite.js';

describeInstanceBus('memory', async () => ({ bus: createMemoryInstanceBus(), close: async () => {} }));
