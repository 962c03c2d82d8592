import { startReins, reinsResult } from './loop-overhead/workload.js';
for (let i = 0; i < 3000; i++) await reinsResult(startReins(3));
const t = performance.now();
for (let i = 0; i < 3000; i++) await reinsResult(startReins(3));
console.log((((performance.now() - t) * 1000) / 3000 / 3).toFixed(2), 'µs/step');
