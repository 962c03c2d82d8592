import { z } from 'zod';
import { codeWhitelist, defineTool } from 'reins';
import { scriptModel } from 'reins/testing';
import type { AgentDefinition } from '@reins/server';
import { final } from './helpers.js';

// Seed 001's claims agent (a plan agent that has to ask which 协和 is meant), for the server's tests.

export const plan = (steps: unknown[]): string => JSON.stringify({ thought: 'planning', steps });
const hospitalStep = (code: string) => ({
  id: 's1',
  action: 'query_medical_record',
  input: { patient_id: 'zhangsan', hospital_code: code },
  dependsOn: [],
});

/** Seed 001's claims agent as a plan agent: 协和 is three hospitals. */
export function claimsAgent(options: Partial<AgentDefinition> = {}) {
  const queried: unknown[] = [];
  const tool = defineTool({
    name: 'query_medical_record',
    description: 'Hospital stays of a patient at one hospital (by hospital code).',
    input: z.object({ patient_id: z.string(), hospital_code: z.string() }),
    output: z.object({ stays: z.number() }),
    readOnly: true,
    run: (input) => {
      queried.push(input);
      return { stays: 2 };
    },
  });
  const model = scriptModel([plan([hospitalStep('协和')]), final('2 stays synced')]);
  const agent: AgentDefinition = {
    kind: 'plan',
    model,
    tools: [tool],
    validators: [
      codeWhitelist({
        name: 'hospitals',
        field: 'hospital_code',
        noun: 'hospital',
        codes: [
          { value: 'BJXH001', label: '北京协和医院', aliases: ['协和'] },
          { value: 'WHXH001', label: '武汉协和医院', aliases: ['协和'] },
          { value: 'FZXH001', label: '福州协和医院', aliases: ['协和'] },
        ],
      }),
    ],
    ...options,
  };
  return { agent, model, queried };
}
